//! The recurrent family: operators with state carried from one inference to the next —
//! SVDF ([`svdf`]), UNIDIRECTIONAL_SEQUENCE_LSTM ([`lstm`]; its 16x8 kernel [`lstm_16x8`]) and CIRCULAR_BUFFER
//! ([`circular_buffer`]).

pub mod circular_buffer;
pub mod lstm;
pub mod lstm_16x8;
pub mod svdf;
