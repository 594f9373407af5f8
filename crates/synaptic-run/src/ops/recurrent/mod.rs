//! The recurrent family: operators with state carried from one inference to the next —
//! SVDF ([`svdf`]) and UNIDIRECTIONAL_SEQUENCE_LSTM ([`lstm`]).

pub mod lstm;
pub mod svdf;
