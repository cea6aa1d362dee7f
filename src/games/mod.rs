//! Correspondence games: the use cases behind `/api/v1/games`, the outbox of game
//! events, and the background sweep that enforces deadlines.

mod error;
pub mod events;
pub mod model;
pub mod service;
pub mod sweeper;
pub mod view;

pub use error::GameError;
