//! The shape and data-movement family: operators that move bytes without arithmetic on
//! them — RESHAPE (and the byte copies that share its kernel, [`reshape`]), EXPAND_DIMS,
//! CONCATENATION, PACK, PAD and PADV2, MIRROR_PAD, STRIDED_SLICE, SLICE, TRANSPOSE,
//! SPACE_TO_DEPTH and DEPTH_TO_SPACE ([`space_depth`]), SPACE_TO_BATCH_ND and
//! BATCH_TO_SPACE_ND ([`space_batch`]), GATHER, GATHER_ND, EMBEDDING_LOOKUP,
//! DYNAMIC_UPDATE_SLICE, REVERSE_V2, RESIZE_NEAREST_NEIGHBOR and RESIZE_BILINEAR, BROADCAST_TO, SPLIT, SPLIT_V and
//! UNPACK ([`split`]: one run an output); SHAPE (the input's dimensions) and BROADCAST_ARGS
//! (shapes as data),
//! FILL and ZEROS_LIKE (no input data but a scalar).

pub mod broadcast_args;
pub mod broadcast_to;
pub mod concatenation;
pub mod dynamic_update_slice;
pub mod embedding_lookup;
pub mod expand_dims;
pub mod fill;
pub mod gather;
pub mod gather_nd;
pub mod mirror_pad;
pub mod pack;
pub mod pad;
pub mod reshape;
pub mod resize_bilinear;
pub mod resize_nearest;
pub mod reverse;
pub mod shape_of;
pub mod slice;
pub mod space_batch;
pub mod space_depth;
pub mod split;
pub mod strided_slice;
pub mod transpose;
pub mod zeros_like;
