// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// A contract for gateway tests: it stores a value, emits a log when poked, and reverts with revert data
/// (an Error(string) and a custom error) so that error objects with `data` can be compared.
contract Probe {
    event Poked(address indexed by, uint256 value);

    error Refused(uint256 code);

    uint256 public stored = 42;

    function poke(uint256 value) external {
        stored = value;
        emit Poked(msg.sender, value);
    }

    function fail() external pure {
        revert("probe says no");
    }

    function failCustom() external pure {
        revert Refused(7);
    }
}
