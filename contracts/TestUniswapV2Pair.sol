// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

interface IBalanceOf {
    function balanceOf(address account) external view returns (uint256);
}

/// @title The read side of a Uniswap V2 pair (token0, token1, getReserves, sync), for on-chain prices in tests.
/// @notice Reserves are the pair's token balances as of the last sync(), as in Uniswap V2; there is no swap.
contract TestUniswapV2Pair {
    address public immutable token0;
    address public immutable token1;

    uint112 private reserve0;
    uint112 private reserve1;
    uint32 private blockTimestampLast;

    event Sync(uint112 reserve0, uint112 reserve1);

    constructor(address tokenA, address tokenB) {
        require(tokenA != tokenB, "TestUniswapV2Pair: identical tokens");
        (token0, token1) = tokenA < tokenB ? (tokenA, tokenB) : (tokenB, tokenA);
    }

    function getReserves() external view returns (uint112, uint112, uint32) {
        return (reserve0, reserve1, blockTimestampLast);
    }

    function sync() external {
        uint256 balance0 = IBalanceOf(token0).balanceOf(address(this));
        uint256 balance1 = IBalanceOf(token1).balanceOf(address(this));
        require(balance0 <= type(uint112).max && balance1 <= type(uint112).max, "TestUniswapV2Pair: overflow");
        reserve0 = uint112(balance0);
        reserve1 = uint112(balance1);
        blockTimestampLast = uint32(block.timestamp);
        emit Sync(reserve0, reserve1);
    }
}
