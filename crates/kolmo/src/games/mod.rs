//! games
