// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

interface IApprovable {
    function approve(address spender, uint256 amount) external returns (bool);
}

/// @title A smart-contract wallet that signs the EIP-1271 way, for eip1271 orders in tests.
/// @notice A digest is valid when the owner approved it with approveHash, or when the signature is the
/// owner's 65-byte ECDSA signature (r || s || v) of the digest itself.
contract TestEip1271Wallet {
    bytes4 internal constant MAGIC_VALUE = 0x1626ba7e;
    bytes4 internal constant INVALID = 0xffffffff;
    // Upper bound of s in a canonical (non-malleable) secp256k1 signature.
    uint256 internal constant HALF_ORDER = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;

    address public immutable owner;
    mapping(bytes32 => bool) public approvedHashes;

    event HashApproved(bytes32 indexed hash, bool approved);

    constructor(address owner_) {
        owner = owner_;
    }

    modifier onlyOwner() {
        require(msg.sender == owner, "TestEip1271Wallet: not the owner");
        _;
    }

    function approveHash(bytes32 hash, bool approved) external onlyOwner {
        approvedHashes[hash] = approved;
        emit HashApproved(hash, approved);
    }

    /// Lets the wallet's tokens be spent, e.g. by the GPv2 vault relayer, so that its orders can settle.
    function approveToken(address token, address spender, uint256 amount) external onlyOwner {
        require(IApprovable(token).approve(spender, amount), "TestEip1271Wallet: approve failed");
    }

    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        if (approvedHashes[hash]) return MAGIC_VALUE;
        if (signature.length == 65 && _recover(hash, signature) == owner) return MAGIC_VALUE;
        return INVALID;
    }

    function _recover(bytes32 hash, bytes calldata signature) private pure returns (address) {
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        if (uint256(s) > HALF_ORDER || (v != 27 && v != 28)) return address(0);
        return ecrecover(hash, v, r, s);
    }
}
