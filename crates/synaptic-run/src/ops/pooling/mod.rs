//! The pooling family: AVERAGE_POOL_2D ([`average_pool_2d`]) and MAX_POOL_2D
//! ([`max_pool_2d`]), int8 and float32, L2_POOL_2D ([`l2_pool_2d`], float32), over what they share ([`pool_2d`]: options, window,
//! preparation, access contract).

pub mod average_pool_2d;
pub mod l2_pool_2d;
pub mod max_pool_2d;
pub mod pool_2d;
