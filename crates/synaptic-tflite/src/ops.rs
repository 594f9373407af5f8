//! TFLite builtin operator codes and names (`BuiltinOperator` in `schema.fbs`).

/// TFLite builtin operator names, by code (0..=161).
pub const BUILTIN_NAMES: &[&str] = &[
    "ADD",
    "AVERAGE_POOL_2D",
    "CONCATENATION",
    "CONV_2D",
    "DEPTHWISE_CONV_2D",
    "DEPTH_TO_SPACE",
    "DEQUANTIZE",
    "EMBEDDING_LOOKUP",
    "FLOOR",
    "FULLY_CONNECTED",
    "HASHTABLE_LOOKUP",
    "L2_NORMALIZATION",
    "L2_POOL_2D",
    "LOCAL_RESPONSE_NORMALIZATION",
    "LOGISTIC",
    "LSH_PROJECTION",
    "LSTM",
    "MAX_POOL_2D",
    "MUL",
    "RELU",
    "RELU_N1_TO_1",
    "RELU6",
    "RESHAPE",
    "RESIZE_BILINEAR",
    "RNN",
    "SOFTMAX",
    "SPACE_TO_DEPTH",
    "SVDF",
    "TANH",
    "CONCAT_EMBEDDINGS",
    "SKIP_GRAM",
    "CALL",
    "CUSTOM",
    "EMBEDDING_LOOKUP_SPARSE",
    "PAD",
    "UNIDIRECTIONAL_SEQUENCE_RNN",
    "GATHER",
    "BATCH_TO_SPACE_ND",
    "SPACE_TO_BATCH_ND",
    "TRANSPOSE",
    "MEAN",
    "SUB",
    "DIV",
    "SQUEEZE",
    "UNIDIRECTIONAL_SEQUENCE_LSTM",
    "STRIDED_SLICE",
    "BIDIRECTIONAL_SEQUENCE_RNN",
    "EXP",
    "TOPK_V2",
    "SPLIT",
    "LOG_SOFTMAX",
    "DELEGATE",
    "BIDIRECTIONAL_SEQUENCE_LSTM",
    "CAST",
    "PRELU",
    "MAXIMUM",
    "ARG_MAX",
    "MINIMUM",
    "LESS",
    "NEG",
    "PADV2",
    "GREATER",
    "GREATER_EQUAL",
    "LESS_EQUAL",
    "SELECT",
    "SLICE",
    "SIN",
    "TRANSPOSE_CONV",
    "SPARSE_TO_DENSE",
    "TILE",
    "EXPAND_DIMS",
    "EQUAL",
    "NOT_EQUAL",
    "LOG",
    "SUM",
    "SQRT",
    "RSQRT",
    "SHAPE",
    "POW",
    "ARG_MIN",
    "FAKE_QUANT",
    "REDUCE_PROD",
    "REDUCE_MAX",
    "PACK",
    "LOGICAL_OR",
    "ONE_HOT",
    "LOGICAL_AND",
    "LOGICAL_NOT",
    "UNPACK",
    "REDUCE_MIN",
    "FLOOR_DIV",
    "REDUCE_ANY",
    "SQUARE",
    "ZEROS_LIKE",
    "FILL",
    "FLOOR_MOD",
    "RANGE",
    "RESIZE_NEAREST_NEIGHBOR",
    "LEAKY_RELU",
    "SQUARED_DIFFERENCE",
    "MIRROR_PAD",
    "ABS",
    "SPLIT_V",
    "UNIQUE",
    "CEIL",
    "REVERSE_V2",
    "ADD_N",
    "GATHER_ND",
    "COS",
    "WHERE",
    "RANK",
    "ELU",
    "REVERSE_SEQUENCE",
    "MATRIX_DIAG",
    "QUANTIZE",
    "MATRIX_SET_DIAG",
    "ROUND",
    "HARD_SWISH",
    "IF",
    "WHILE",
    "NON_MAX_SUPPRESSION_V4",
    "NON_MAX_SUPPRESSION_V5",
    "SCATTER_ND",
    "SELECT_V2",
    "DENSIFY",
    "SEGMENT_SUM",
    "BATCH_MATMUL",
    "PLACEHOLDER_FOR_GREATER_OP_CODES",
    "CUMSUM",
    "CALL_ONCE",
    "BROADCAST_TO",
    "RFFT2D",
    "CONV_3D",
    "IMAG",
    "REAL",
    "COMPLEX_ABS",
    "HASHTABLE",
    "HASHTABLE_FIND",
    "HASHTABLE_IMPORT",
    "HASHTABLE_SIZE",
    "REDUCE_ALL",
    "CONV_3D_TRANSPOSE",
    "VAR_HANDLE",
    "READ_VARIABLE",
    "ASSIGN_VARIABLE",
    "BROADCAST_ARGS",
    "RANDOM_STANDARD_NORMAL",
    "BUCKETIZE",
    "RANDOM_UNIFORM",
    "MULTINOMIAL",
    "GELU",
    "DYNAMIC_UPDATE_SLICE",
    "RELU_0_TO_1",
    "UNSORTED_SEGMENT_PROD",
    "UNSORTED_SEGMENT_MAX",
    "UNSORTED_SEGMENT_SUM",
    "ATAN2",
    "UNSORTED_SEGMENT_MIN",
    "SIGN",
    "BITCAST",
    "BITWISE_XOR",
    "RIGHT_SHIFT",
];

/// The name of builtin operator `code` (`CONV_2D`), or `None` for a code past the table.
///
/// ```
/// assert_eq!(synaptic_tflite::builtin_name(3), Some("CONV_2D"));
/// assert_eq!(synaptic_tflite::builtin_name(-1), None);
/// ```
pub fn builtin_name(code: i32) -> Option<&'static str> {
    usize::try_from(code)
        .ok()
        .and_then(|c| BUILTIN_NAMES.get(c))
        .copied()
}

/// Builtin operator codes the runtime knows by name.
#[allow(missing_docs)]
pub mod code {
    pub const ADD: i32 = 0;
    pub const AVERAGE_POOL_2D: i32 = 1;
    pub const CONCATENATION: i32 = 2;
    pub const CONV_2D: i32 = 3;
    pub const DEPTHWISE_CONV_2D: i32 = 4;
    pub const DEQUANTIZE: i32 = 6;
    pub const FULLY_CONNECTED: i32 = 9;
    pub const LOGISTIC: i32 = 14;
    pub const MAX_POOL_2D: i32 = 17;
    pub const MUL: i32 = 18;
    pub const RELU: i32 = 19;
    pub const RELU6: i32 = 21;
    pub const RESHAPE: i32 = 22;
    pub const SOFTMAX: i32 = 25;
    pub const SVDF: i32 = 27;
    pub const CUSTOM: i32 = 32;
    pub const PAD: i32 = 34;
    pub const TRANSPOSE: i32 = 39;
    pub const MEAN: i32 = 40;
    pub const SUM: i32 = 74;
    pub const REDUCE_MAX: i32 = 82;
    pub const REDUCE_MIN: i32 = 89;
    pub const REDUCE_ALL: i32 = 140;
    pub const SPLIT: i32 = 49;
    pub const SPLIT_V: i32 = 102;
    pub const UNPACK: i32 = 88;
    pub const RESIZE_BILINEAR: i32 = 23;
    pub const SUB: i32 = 41;
    pub const SQUARED_DIFFERENCE: i32 = 99;
    pub const DIV: i32 = 42;
    pub const SQUEEZE: i32 = 43;
    pub const UNIDIRECTIONAL_SEQUENCE_LSTM: i32 = 44;
    pub const STRIDED_SLICE: i32 = 45;
    pub const SLICE: i32 = 65;
    pub const PACK: i32 = 83;
    pub const ZEROS_LIKE: i32 = 93;
    pub const FILL: i32 = 94;
    pub const CAST: i32 = 53;
    pub const EXPAND_DIMS: i32 = 70;
    pub const NEG: i32 = 59;
    pub const FLOOR: i32 = 8;
    pub const CEIL: i32 = 104;
    pub const SQUARE: i32 = 92;
    pub const SHAPE: i32 = 77;
    pub const MAXIMUM: i32 = 55;
    pub const MINIMUM: i32 = 57;
    pub const QUANTIZE: i32 = 114;
    pub const ABS: i32 = 101;
    pub const SQRT: i32 = 75;
    pub const RSQRT: i32 = 76;
    pub const ROUND: i32 = 116;
    pub const EXP: i32 = 47;
    pub const LESS: i32 = 58;
    pub const GREATER: i32 = 61;
    pub const GREATER_EQUAL: i32 = 62;
    pub const LESS_EQUAL: i32 = 63;
    pub const EQUAL: i32 = 71;
    pub const NOT_EQUAL: i32 = 72;
    pub const LOGICAL_OR: i32 = 84;
    pub const LOGICAL_AND: i32 = 86;
    pub const LOGICAL_NOT: i32 = 87;
    pub const DEPTH_TO_SPACE: i32 = 5;
    pub const SPACE_TO_DEPTH: i32 = 26;
    pub const GATHER: i32 = 36;
    pub const ARG_MAX: i32 = 56;
    pub const ARG_MIN: i32 = 79;
    pub const RESIZE_NEAREST_NEIGHBOR: i32 = 97;
    pub const LEAKY_RELU: i32 = 98;
    pub const ELU: i32 = 111;
    pub const HARD_SWISH: i32 = 117;
    pub const PRELU: i32 = 54;
    pub const TANH: i32 = 28;
    pub const FLOOR_DIV: i32 = 90;
    pub const FLOOR_MOD: i32 = 95;
    pub const ADD_N: i32 = 106;
    pub const L2_NORMALIZATION: i32 = 11;
    pub const LOG_SOFTMAX: i32 = 50;
    pub const REVERSE_V2: i32 = 105;
    pub const SELECT_V2: i32 = 123;
    pub const EMBEDDING_LOOKUP: i32 = 7;
    pub const BATCH_TO_SPACE_ND: i32 = 37;
    pub const SPACE_TO_BATCH_ND: i32 = 38;
    pub const PADV2: i32 = 60;
    pub const MIRROR_PAD: i32 = 100;
    pub const GATHER_ND: i32 = 107;
    pub const CUMSUM: i32 = 128;
    pub const BATCH_MATMUL: i32 = 126;
    pub const TRANSPOSE_CONV: i32 = 67;
    pub const BROADCAST_TO: i32 = 130;
    pub const BROADCAST_ARGS: i32 = 145;
    pub const DYNAMIC_UPDATE_SLICE: i32 = 151;
    pub const L2_POOL_2D: i32 = 12;
    pub const SIN: i32 = 66;
    pub const LOG: i32 = 73;
    pub const COS: i32 = 108;
}
