// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title A mintable ERC-20 whose reads can be made to fail for chosen owners, for tests.
/// @notice `setFault(owner, fault)` makes balanceOf(owner) and allowance(owner, *) end as a broken token's
/// do, not as a revert: 1 runs until the call is out of gas, 2 executes the INVALID opcode; 0 heals it.
/// Transfers keep working, so the settlement could still pull the token: only reading it fails.
contract TestFaultyToken {
    string public name;
    string public symbol;
    uint8 public immutable decimals;
    uint256 public totalSupply;

    mapping(address => uint256) private balances;
    mapping(address => mapping(address => uint256)) private allowances;
    mapping(address => uint8) public faultOf;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    constructor(string memory name_, string memory symbol_, uint8 decimals_) {
        name = name_;
        symbol = symbol_;
        decimals = decimals_;
    }

    function setFault(address owner, uint8 fault) external {
        faultOf[owner] = fault;
    }

    function balanceOf(address owner) external view returns (uint256) {
        _fail(owner);
        return balances[owner];
    }

    function allowance(address owner, address spender) external view returns (uint256) {
        _fail(owner);
        return allowances[owner][spender];
    }

    function mint(address to, uint256 amount) external {
        totalSupply += amount;
        balances[to] += amount;
        emit Transfer(address(0), to, amount);
    }

    function approve(address spender, uint256 amount) external returns (bool) {
        allowances[msg.sender][spender] = amount;
        emit Approval(msg.sender, spender, amount);
        return true;
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        _move(msg.sender, to, amount);
        return true;
    }

    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        uint256 allowed = allowances[from][msg.sender];
        if (allowed != type(uint256).max) {
            require(allowed >= amount, "TestFaultyToken: insufficient allowance");
            allowances[from][msg.sender] = allowed - amount;
        }
        _move(from, to, amount);
        return true;
    }

    function _fail(address owner) private view {
        uint8 fault = faultOf[owner];
        if (fault == 1) {
            // Reads storage slot after slot until no gas is left: out of gas whatever the cap.
            uint256 sink;
            for (uint256 slot = 0; ; slot++) {
                assembly {
                    sink := add(sink, sload(add(slot, 0x1000)))
                }
            }
        } else if (fault == 2) {
            assembly {
                invalid()
            }
        }
    }

    function _move(address from, address to, uint256 amount) private {
        require(balances[from] >= amount, "TestFaultyToken: insufficient balance");
        balances[from] -= amount;
        if (to != address(0)) balances[to] += amount;
        emit Transfer(from, to, amount);
    }
}
