//! The recurrent family: operators with state carried from one inference to the next —
//! SVDF ([`svdf`]), UNIDIRECTIONAL_SEQUENCE_LSTM ([`lstm`]) and CIRCULAR_BUFFER
//! ([`circular_buffer`]).

pub mod circular_buffer;
pub mod lstm;
pub mod svdf;
