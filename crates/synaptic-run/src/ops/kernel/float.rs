//! What the float32 kernels share, computed exactly as TFLM's reference float kernels compute
//! it in the `tflite-micro` wheel on x86-64, so that every output is bit-identical:
//!
//! * **Arithmetic**: IEEE-754 single precision, one rounding per `+`, `*`, `/`, in TFLM's
//!   order of operations (each kernel says its loop order); no fused multiply-add (the wheel
//!   is built for baseline x86-64, which has none, so the compiler fuses nothing). Rust's
//!   `f32` operators are exactly that, on the host and under Cortex-M soft-float or FPU alike.
//! * **Clamping** ([`FloatRange::apply`]): `std::min(std::max(x, lo), hi)` — C++'s
//!   `std::max(a, b)` is `a < b ? b : a`, so NaN passes through, `-0.0` stays `-0.0`, and
//!   without a fused activation the range is `[f32::MIN, f32::MAX]` (infinities clamp to the
//!   largest finite value), as `CalculateActivationRange<float>` sets it.
//! * **`exp`** ([`expf`]): the wheel's `std::exp(float)` is glibc's `expf` (the wheel's
//!   `_runtime.so` imports `expf@GLIBC_2.27`), whose algorithm (ARM's optimized-routines,
//!   Szabolcs Nagy, 2017) is a 32-entry table of `2^(i/32)` and a degree-3 polynomial in
//!   double precision. On x86-64 with FMA glibc selects its build compiled with `-mfma`, where
//!   GCC fuses five multiply-adds; this port computes those five with an exact software
//!   fused multiply-add ([`fma`]), and equals the host's `expf` on all 2^32 inputs
//!   (`cargo test --release -p synaptic-run -- --ignored expf_every_float`). glibc's build
//!   without FMA differs from it on 2 inputs (both above 32, never a softmax or logistic
//!   argument of the exp-of-negative kind); the sampled test accepts either.
//! * **`exp` in double precision** ([`exp`]): TFLite_Detection_PostProcess's box sizes take
//!   `std::exp(double)`, glibc's `exp` (ARM's optimized routines, a 128-entry table and a
//!   degree-5 polynomial) in its `-mfma` build, whose fused multiply-adds are computed with
//!   [`fma`] (below the normal range, where GCC fuses none, plainly); it equals the host's
//!   `exp` on a sample of every range (test).
//! * **`tanh`** ([`tanhf`]): the wheel's `std::tanh(float)` (float TANH, LSTM) is glibc's
//!   `tanhf`, fdlibm's float `tanh` over its `expm1f`, all in single precision; x86-64 glibc
//!   has no FMA variant of either, so this plain-arithmetic port equals the host's `tanhf` on
//!   all 2^32 inputs (`cargo test --release -p synaptic-run --lib -- --ignored
//!   tanhf_every_float`).
//! * **`sqrt`** ([`sqrtf`]): IEEE-754's square root, correctly rounded (what x86-64's
//!   `SQRTSS` and glibc's `sqrtf` give), computed here with integers (`core` has no float
//!   square root): the same bits on every target; the NaN of a negative input is x86-64's
//!   default NaN (`0xFFC0_0000`), as the wheel's.
//! * **`log`, `sin`, `cos`** ([`logf`], [`sinf`], [`cosf`]): the wheel's `std::log`,
//!   `std::sin`, `std::cos` of a float (LOG_SOFTMAX, LOG, SIN, COS) are glibc 2.36's `logf`,
//!   `sinf`, `cosf` (ARM's optimized routines: a table and a polynomial in double precision;
//!   `sinf`/`cosf` reduce by `π/2`, with a 192-bit `4/π` above 120), in the `-mfma` builds
//!   x86-64 selects, whose fused multiply-adds are computed here with [`fma`]; each equals
//!   the host's on a sweep of bit patterns of both signs and the special values (tests).
//! * **Reading in place**: float weights and constants stay in the model bytes, read as
//!   little-endian words ([`LeF32`]; a flatbuffer does not promise their alignment), and the
//!   arena's float tensors are `[f32]` slices ([`F32s`] covers both).

use crate::math::Activation;

/// Whether this build has the float32 kernels (cargo feature `float32`, on by default). Every
/// float branch of a `prepare` starts with it, so that without the feature no float code is
/// linked and a float model is refused as the int8 kernels refuse it.
pub(crate) const BUILT: bool = cfg!(feature = "float32");

/// The output range of a fused activation, as TFLM's `CalculateActivationRange<float>`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FloatRange {
    /// The lowest output.
    pub(crate) min: f32,
    /// The highest output.
    pub(crate) max: f32,
}

impl FloatRange {
    /// The range of `activation` (NONE: every finite float). TANH and SIGN_BIT never get
    /// here: [`Activation::from_tflite`] refuses them for float operators as for int8 ones
    /// (TFLM's float kernels would silently apply no activation).
    pub fn new(activation: Activation) -> Self {
        let (min, max) = match activation {
            Activation::None => (f32::MIN, f32::MAX),
            Activation::Relu => (0.0, f32::MAX),
            Activation::Relu6 => (0.0, 6.0),
            Activation::ReluN1To1 => (-1.0, 1.0),
        };
        FloatRange { min, max }
    }

    /// `std::min(std::max(x, min), max)` (TFLM's `ActivationFunctionWithMinMax`).
    #[inline(always)]
    pub fn apply(&self, x: f32) -> f32 {
        let y = if x < self.min { self.min } else { x };
        if self.max < y {
            self.max
        } else {
            y
        }
    }
}

/// A vector of float32: a `[f32]` slice (an arena tensor), or the little-endian bytes of a
/// model buffer read in place ([`LeF32`]).
pub trait F32s {
    /// Number of elements.
    fn count(&self) -> usize;
    /// Element `i` (`i < count()`; the kernels check the count first).
    fn at(&self, i: usize) -> f32;
}

impl F32s for [f32] {
    #[inline(always)]
    fn count(&self) -> usize {
        self.len()
    }
    #[inline(always)]
    fn at(&self, i: usize) -> f32 {
        self[i]
    }
}

/// Little-endian float32 data of a model buffer (or of any bytes), read in place; a trailing
/// partial element is not counted.
#[derive(Debug, Clone, Copy)]
pub struct LeF32<'a>(pub &'a [u8]);

impl F32s for LeF32<'_> {
    #[inline(always)]
    fn count(&self) -> usize {
        self.0.len() / 4
    }
    #[inline(always)]
    fn at(&self, i: usize) -> f32 {
        let b = &self.0[4 * i..4 * i + 4];
        f32::from_le_bytes([b[0], b[1], b[2], b[3]])
    }
}

// The program's word codec of an activation range: two floats.
crate::format::codec::words!(FloatRange { min: f32, max: f32 });

/// `2^(i/32)` as the bits of a double, minus `i << 47` (so that adding `k << 47` for the
/// integer part `k` of `32·x/ln 2` scales it): `round_to_double(2^(i/32))`, computed with 60
/// significant digits; the table of glibc's `__exp2f_data.tab`.
const EXP2_TABLE: [u64; 32] = [
    0x3FF0000000000000,
    0x3FEFD9B0D3158574,
    0x3FEFB5586CF9890F,
    0x3FEF9301D0125B51,
    0x3FEF72B83C7D517B,
    0x3FEF54873168B9AA,
    0x3FEF387A6E756238,
    0x3FEF1E9DF51FDEE1,
    0x3FEF06FE0A31B715,
    0x3FEEF1A7373AA9CB,
    0x3FEEDEA64C123422,
    0x3FEECE086061892D,
    0x3FEEBFDAD5362A27,
    0x3FEEB42B569D4F82,
    0x3FEEAB07DD485429,
    0x3FEEA47EB03A5585,
    0x3FEEA09E667F3BCD,
    0x3FEE9F75E8EC5F74,
    0x3FEEA11473EB0187,
    0x3FEEA589994CCE13,
    0x3FEEACE5422AA0DB,
    0x3FEEB737B0CDC5E5,
    0x3FEEC49182A3F090,
    0x3FEED503B23E255D,
    0x3FEEE89F995AD3AD,
    0x3FEEFF76F2FB5E47,
    0x3FEF199BDD85529C,
    0x3FEF3720DCEF9069,
    0x3FEF5818DCFBA487,
    0x3FEF7C97337B9B5F,
    0x3FEFA4AFA2A490DA,
    0x3FEFD0765B6E4540,
];

/// `32 / ln 2` (`0x1.71547652b82fep0 · 32`).
const INV_LN2_N: f64 = f64::from_bits(0x3FF71547652B82FE) * 32.0;
/// `0x1.8p52`: adding it rounds a double to an integer (ties to even) in its low bits.
const SHIFT: f64 = f64::from_bits(0x4338000000000000);
/// The polynomial `2^(r/32) ≈ 1 + C2·r + C1·r² + C0·r³` (glibc's `poly_scaled`:
/// `0x1.c6af84b912394p-5 / 32³`, `0x1.ebfce50fac4f3p-3 / 32²`, `0x1.62e42ff0c52d6p-1 / 32`).
const C: [f64; 3] = [
    f64::from_bits(0x3FAC6AF84B912394) / (32.0 * 32.0 * 32.0),
    f64::from_bits(0x3FCEBFCE50FAC4F3) / (32.0 * 32.0),
    f64::from_bits(0x3FE62E42FF0C52D6) / 32.0,
];

/// `e^x` in single precision, equal to glibc's `expf` as the TFLM wheel calls it (module
/// docs): `x·32/ln 2 = k + r`, `e^x = 2^(k/32) · 2^(r/32)`, the first from the table, the
/// second a polynomial, in double precision with five fused multiply-adds.
pub fn expf(x: f32) -> f32 {
    let xd = f64::from(x);
    let abstop = (x.to_bits() >> 20) & 0x7ff;
    if abstop >= (88.0f32.to_bits() >> 20) {
        // |x| >= 88, or NaN.
        if x == f32::NEG_INFINITY {
            return 0.0;
        }
        if abstop >= (f32::INFINITY.to_bits() >> 20) {
            return x + x;
        }
        if x > f32::from_bits(0x42B1_7217) {
            // Above ln(2^128): overflow.
            return f32::INFINITY;
        }
        if x < f32::from_bits(0xC2CF_F1B4) {
            // Below ln(2^-150): underflow.
            return 0.0;
        }
    }
    let kd = fma(INV_LN2_N, xd, SHIFT);
    let ki = kd.to_bits();
    let kd = kd - SHIFT;
    let r = fma(INV_LN2_N, xd, -kd);
    let t = EXP2_TABLE[(ki % 32) as usize].wrapping_add(ki << 47);
    let s = f64::from_bits(t);
    let z = fma(C[0], r, C[1]);
    let r2 = r * r;
    let y = fma(C[2], r, 1.0);
    let y = fma(z, r2, y);
    (y * s) as f32
}

/// glibc's `__exp_data.tab` (`N = 128`): for `k` in `0..128`, the bits of `T[k]` and of
/// `H[k]` minus `k << 45`, where `2^(k/128) ≈ H[k] · (1 + T[k])`, `H[k]` the double nearest
/// `2^(k/128)` and `T[k]` the double nearest the rest (computed with 300-bit arithmetic; equal
/// to glibc's table).
const EXP_TAB: [u64; 256] = [
    0x0000000000000000,
    0x3FF0000000000000,
    0x3C9B3B4F1A88BF6E,
    0x3FEFF63DA9FB3335,
    0xBC7160139CD8DC5D,
    0x3FEFEC9A3E778061,
    0xBC905E7A108766D1,
    0x3FEFE315E86E7F85,
    0x3C8CD2523567F613,
    0x3FEFD9B0D3158574,
    0xBC8BCE8023F98EFA,
    0x3FEFD06B29DDF6DE,
    0x3C60F74E61E6C861,
    0x3FEFC74518759BC8,
    0x3C90A3E45B33D399,
    0x3FEFBE3ECAC6F383,
    0x3C979AA65D837B6D,
    0x3FEFB5586CF9890F,
    0x3C8EB51A92FDEFFC,
    0x3FEFAC922B7247F7,
    0x3C3EBE3D702F9CD1,
    0x3FEFA3EC32D3D1A2,
    0xBC6A033489906E0B,
    0x3FEF9B66AFFED31B,
    0xBC9556522A2FBD0E,
    0x3FEF9301D0125B51,
    0xBC5080EF8C4EEA55,
    0x3FEF8ABDC06C31CC,
    0xBC91C923B9D5F416,
    0x3FEF829AAEA92DE0,
    0x3C80D3E3E95C55AF,
    0x3FEF7A98C8A58E51,
    0xBC801B15EAA59348,
    0x3FEF72B83C7D517B,
    0xBC8F1FF055DE323D,
    0x3FEF6AF9388C8DEA,
    0x3C8B898C3F1353BF,
    0x3FEF635BEB6FCB75,
    0xBC96D99C7611EB26,
    0x3FEF5BE084045CD4,
    0x3C9AECF73E3A2F60,
    0x3FEF54873168B9AA,
    0xBC8FE782CB86389D,
    0x3FEF4D5022FCD91D,
    0x3C8A6F4144A6C38D,
    0x3FEF463B88628CD6,
    0x3C807A05B0E4047D,
    0x3FEF3F49917DDC96,
    0x3C968EFDE3A8A894,
    0x3FEF387A6E756238,
    0x3C875E18F274487D,
    0x3FEF31CE4FB2A63F,
    0x3C80472B981FE7F2,
    0x3FEF2B4565E27CDD,
    0xBC96B87B3F71085E,
    0x3FEF24DFE1F56381,
    0x3C82F7E16D09AB31,
    0x3FEF1E9DF51FDEE1,
    0xBC3D219B1A6FBFFA,
    0x3FEF187FD0DAD990,
    0x3C8B3782720C0AB4,
    0x3FEF1285A6E4030B,
    0x3C6E149289CECB8F,
    0x3FEF0CAFA93E2F56,
    0x3C834D754DB0ABB6,
    0x3FEF06FE0A31B715,
    0x3C864201E2AC744C,
    0x3FEF0170FC4CD831,
    0x3C8FDD395DD3F84A,
    0x3FEEFC08B26416FF,
    0xBC86A3803B8E5B04,
    0x3FEEF6C55F929FF1,
    0xBC924AEDCC4B5068,
    0x3FEEF1A7373AA9CB,
    0xBC9907F81B512D8E,
    0x3FEEECAE6D05D866,
    0xBC71D1E83E9436D2,
    0x3FEEE7DB34E59FF7,
    0xBC991919B3CE1B15,
    0x3FEEE32DC313A8E5,
    0x3C859F48A72A4C6D,
    0x3FEEDEA64C123422,
    0xBC9312607A28698A,
    0x3FEEDA4504AC801C,
    0xBC58A78F4817895B,
    0x3FEED60A21F72E2A,
    0xBC7C2C9B67499A1B,
    0x3FEED1F5D950A897,
    0x3C4363ED60C2AC11,
    0x3FEECE086061892D,
    0x3C9666093B0664EF,
    0x3FEECA41ED1D0057,
    0x3C6ECCE1DAA10379,
    0x3FEEC6A2B5C13CD0,
    0x3C93FF8E3F0F1230,
    0x3FEEC32AF0D7D3DE,
    0x3C7690CEBB7AAFB0,
    0x3FEEBFDAD5362A27,
    0x3C931DBDEB54E077,
    0x3FEEBCB299FDDD0D,
    0xBC8F94340071A38E,
    0x3FEEB9B2769D2CA7,
    0xBC87DECCDC93A349,
    0x3FEEB6DAA2CF6642,
    0xBC78DEC6BD0F385F,
    0x3FEEB42B569D4F82,
    0xBC861246EC7B5CF6,
    0x3FEEB1A4CA5D920F,
    0x3C93350518FDD78E,
    0x3FEEAF4736B527DA,
    0x3C7B98B72F8A9B05,
    0x3FEEAD12D497C7FD,
    0x3C9063E1E21C5409,
    0x3FEEAB07DD485429,
    0x3C34C7855019C6EA,
    0x3FEEA9268A5946B7,
    0x3C9432E62B64C035,
    0x3FEEA76F15AD2148,
    0xBC8CE44A6199769F,
    0x3FEEA5E1B976DC09,
    0xBC8C33C53BEF4DA8,
    0x3FEEA47EB03A5585,
    0xBC845378892BE9AE,
    0x3FEEA34634CCC320,
    0xBC93CEDD78565858,
    0x3FEEA23882552225,
    0x3C5710AA807E1964,
    0x3FEEA155D44CA973,
    0xBC93B3EFBF5E2228,
    0x3FEEA09E667F3BCD,
    0xBC6A12AD8734B982,
    0x3FEEA012750BDABF,
    0xBC6367EFB86DA9EE,
    0x3FEE9FB23C651A2F,
    0xBC80DC3D54E08851,
    0x3FEE9F7DF9519484,
    0xBC781F647E5A3ECF,
    0x3FEE9F75E8EC5F74,
    0xBC86EE4AC08B7DB0,
    0x3FEE9F9A48A58174,
    0xBC8619321E55E68A,
    0x3FEE9FEB564267C9,
    0x3C909CCB5E09D4D3,
    0x3FEEA0694FDE5D3F,
    0xBC7B32DCB94DA51D,
    0x3FEEA11473EB0187,
    0x3C94ECFD5467C06B,
    0x3FEEA1ED0130C132,
    0x3C65EBE1ABD66C55,
    0x3FEEA2F336CF4E62,
    0xBC88A1C52FB3CF42,
    0x3FEEA427543E1A12,
    0xBC9369B6F13B3734,
    0x3FEEA589994CCE13,
    0xBC805E843A19FF1E,
    0x3FEEA71A4623C7AD,
    0xBC94D450D872576E,
    0x3FEEA8D99B4492ED,
    0x3C90AD675B0E8A00,
    0x3FEEAAC7D98A6699,
    0x3C8DB72FC1F0EAB4,
    0x3FEEACE5422AA0DB,
    0xBC65B6609CC5E7FF,
    0x3FEEAF3216B5448C,
    0x3C7BF68359F35F44,
    0x3FEEB1AE99157736,
    0xBC93091FA71E3D83,
    0x3FEEB45B0B91FFC6,
    0xBC5DA9B88B6C1E29,
    0x3FEEB737B0CDC5E5,
    0xBC6C23F97C90B959,
    0x3FEEBA44CBC8520F,
    0xBC92434322F4F9AA,
    0x3FEEBD829FDE4E50,
    0xBC85CA6CD7668E4B,
    0x3FEEC0F170CA07BA,
    0x3C71AFFC2B91CE27,
    0x3FEEC49182A3F090,
    0x3C6DD235E10A73BB,
    0x3FEEC86319E32323,
    0xBC87C50422622263,
    0x3FEECC667B5DE565,
    0x3C8B1C86E3E231D5,
    0x3FEED09BEC4A2D33,
    0xBC91BBD1D3BCBB15,
    0x3FEED503B23E255D,
    0x3C90CC319CEE31D2,
    0x3FEED99E1330B358,
    0x3C8469846E735AB3,
    0x3FEEDE6B5579FDBF,
    0xBC82DFCD978E9DB4,
    0x3FEEE36BBFD3F37A,
    0x3C8C1A7792CB3387,
    0x3FEEE89F995AD3AD,
    0xBC907B8F4AD1D9FA,
    0x3FEEEE07298DB666,
    0xBC55C3D956DCAEBA,
    0x3FEEF3A2B84F15FB,
    0xBC90A40E3DA6F640,
    0x3FEEF9728DE5593A,
    0xBC68D6F438AD9334,
    0x3FEEFF76F2FB5E47,
    0xBC91EEE26B588A35,
    0x3FEF05B030A1064A,
    0x3C74FFD70A5FDDCD,
    0x3FEF0C1E904BC1D2,
    0xBC91BDFBFA9298AC,
    0x3FEF12C25BD71E09,
    0x3C736EAE30AF0CB3,
    0x3FEF199BDD85529C,
    0x3C8EE3325C9FFD94,
    0x3FEF20AB5FFFD07A,
    0x3C84E08FD10959AC,
    0x3FEF27F12E57D14B,
    0x3C63CDAF384E1A67,
    0x3FEF2F6D9406E7B5,
    0x3C676B2C6C921968,
    0x3FEF3720DCEF9069,
    0xBC808A1883CCB5D2,
    0x3FEF3F0B555DC3FA,
    0xBC8FAD5D3FFFFA6F,
    0x3FEF472D4A07897C,
    0xBC900DAE3875A949,
    0x3FEF4F87080D89F2,
    0x3C74A385A63D07A7,
    0x3FEF5818DCFBA487,
    0xBC82919E2040220F,
    0x3FEF60E316C98398,
    0x3C8E5A50D5C192AC,
    0x3FEF69E603DB3285,
    0x3C843A59AC016B4B,
    0x3FEF7321F301B460,
    0xBC82D52107B43E1F,
    0x3FEF7C97337B9B5F,
    0xBC892AB93B470DC9,
    0x3FEF864614F5A129,
    0x3C74B604603A88D3,
    0x3FEF902EE78B3FF6,
    0x3C83C5EC519D7271,
    0x3FEF9A51FBC74C83,
    0xBC8FF7128FD391F0,
    0x3FEFA4AFA2A490DA,
    0xBC8DAE98E223747D,
    0x3FEFAF482D8E67F1,
    0x3C8EC3BC41AA2008,
    0x3FEFBA1BEE615A27,
    0x3C842B94C3A9EB32,
    0x3FEFC52B376BBA97,
    0x3C8A64A931D185EE,
    0x3FEFD0765B6E4540,
    0xBC8E37BAE43BE3ED,
    0x3FEFDBFDAD9CBE14,
    0x3C77893B4D91CD9D,
    0x3FEFE7C1819E90D8,
    0x3C5305C14160CC89,
    0x3FEFF3C22B8F71F1,
];

/// `128 / ln 2` (`0x1.71547652b82fep0 · 128`).
const EXP_INV_LN2_N: f64 = f64::from_bits(0x40671547652B82FE);
/// `-ln 2 / 128`, its high part (`-0x1.62e42fefa0000p-8`: its products by `k` exact).
const EXP_NEG_LN2_HI_N: f64 = f64::from_bits(0xBF762E42FEFA0000);
/// `-ln 2 / 128`, the rest (`-0x1.cf79abc9e3b3ap-47`).
const EXP_NEG_LN2_LO_N: f64 = f64::from_bits(0xBD0CF79ABC9E3B3A);
/// `0x1.8p52`: adding it rounds a double to an integer in its low bits.
const EXP_SHIFT: f64 = f64::from_bits(0x4338000000000000);
/// The polynomial `e^r - 1 ≈ r + C2·r² + C3·r³ + C4·r⁴ + C5·r⁵` (`0x1.ffffffffffdbdp-2`,
/// `0x1.555555555543cp-3`, `0x1.55555cf172b91p-5`, `0x1.1111167a4d017p-7`).
const EXP_C: [f64; 4] = [
    f64::from_bits(0x3FDFFFFFFFFFFDBD),
    f64::from_bits(0x3FC555555555543C),
    f64::from_bits(0x3FA55555CF172B91),
    f64::from_bits(0x3F81111167A4D017),
];

/// `e^x` in double precision, equal to glibc 2.36's `exp` as the TFLM wheel calls it
/// (`std::exp(double)`: TFLite_Detection_PostProcess's box sizes; the wheel imports
/// `exp@GLIBC_2.2.5`, whose wrapper returns the core's value): ARM's optimized routines
/// (`sysdeps/ieee754/dbl-64/e_exp.c`), `x = k·ln 2/128 + r`, `e^x = 2^(k/128) · e^r`, the
/// first from the table, the second a degree-5 polynomial, in the `-mfma` build x86-64
/// selects, whose fused multiply-adds are computed here with [`fma`].
pub fn exp(x: f64) -> f64 {
    let top12 = |v: f64| (v.to_bits() >> 52) as u32;
    let mut abstop = top12(x) & 0x7ff;
    let tiny = top12(f64::from_bits(0x3C90_0000_0000_0000)); // 0x1p-54
    if abstop.wrapping_sub(tiny) >= top12(512.0) - tiny {
        if abstop.wrapping_sub(tiny) >= 0x8000_0000 {
            // |x| < 2^-54 (0 among them).
            return 1.0 + x;
        }
        if abstop >= top12(1024.0) {
            if x == f64::NEG_INFINITY {
                return 0.0;
            }
            if abstop >= top12(f64::INFINITY) {
                return 1.0 + x;
            }
            return if x.is_sign_negative() {
                0.0
            } else {
                f64::INFINITY
            };
        }
        // Large |x|: scaled apart below.
        abstop = 0;
    }
    let kd = fma(EXP_INV_LN2_N, x, EXP_SHIFT);
    let ki = kd.to_bits();
    let kd = kd - EXP_SHIFT;
    let r = fma(kd, EXP_NEG_LN2_LO_N, fma(kd, EXP_NEG_LN2_HI_N, x));
    let idx = 2 * (ki % 128) as usize;
    let top = ki << 45;
    let tail = f64::from_bits(EXP_TAB[idx]);
    let sbits = EXP_TAB[idx + 1].wrapping_add(top);
    let r2 = r * r;
    let tmp = fma(
        r2 * r2,
        fma(r, EXP_C[3], EXP_C[2]),
        fma(r2, fma(r, EXP_C[1], EXP_C[0]), tail + r),
    );
    if abstop == 0 {
        return exp_special(tmp, sbits, ki);
    }
    let scale = f64::from_bits(sbits);
    fma(scale, tmp, scale)
}

/// [`exp`] where `2^(k/128)` is not a normal double (`specialcase` of `e_exp.c`): scaled by
/// `2^1009` above, and below rounded once into the subnormal range.
fn exp_special(tmp: f64, sbits: u64, ki: u64) -> f64 {
    if ki & 0x8000_0000 == 0 {
        // k > 0: the scale's exponent overflowed by at most 460.
        let scale = f64::from_bits(sbits.wrapping_sub(1009 << 52));
        return f64::from_bits(0x7F00_0000_0000_0000) * fma(scale, tmp, scale);
    }
    // Here the product `scale · tmp` is one value of two sums, and GCC fuses neither: plain
    // operations (equal to the host on every sampled input, a fused one is not).
    let scale = f64::from_bits(sbits.wrapping_add(1022 << 52));
    let st = scale * tmp;
    let mut y = scale + st;
    if y < 1.0 {
        let lo = scale - y + st;
        let hi = 1.0 + y;
        let lo = 1.0 - hi + y + lo;
        y = (hi + lo) - 1.0;
        if y == 0.0 {
            y = 0.0;
        }
    }
    f64::from_bits(0x0010_0000_0000_0000) * y
}

/// `1.0e-30` (`tiny` of glibc's `s_tanhf.c` and `s_expm1f.c`).
const TINY: f32 = f32::from_bits(0x0DA2_4260);
/// `1.0e+30` (`huge` of `s_expm1f.c`).
const HUGE: f32 = f32::from_bits(0x7149_F2CA);
/// `8.8721679688e+01` (`o_threshold` of `s_expm1f.c`): above it `e^x - 1` overflows.
const O_THRESHOLD: f32 = f32::from_bits(0x42B1_7180);
/// `ln 2` rounded to 16 significant bits (`ln2_hi`), so that `k · LN2_HI` is exact.
const LN2_HI: f32 = f32::from_bits(0x3F31_7180);
/// `ln 2 - LN2_HI` (`ln2_lo`).
const LN2_LO: f32 = f32::from_bits(0x3717_F7D1);
/// `1 / ln 2` (`invln2`).
const INV_LN2: f32 = f32::from_bits(0x3FB8_AA3B);
/// The scaled coefficients `Q1..Q5` of `s_expm1f.c`'s rational approximation.
const Q: [f32; 5] = [
    f32::from_bits(0xBD08_8889),
    f32::from_bits(0x3AD0_0D01),
    f32::from_bits(0xB8A6_70CD),
    f32::from_bits(0x3686_7E54),
    f32::from_bits(0xB457_EDBB),
];

/// `y · 2^k` by adding `k` to the exponent field of `y` (`SET_FLOAT_WORD(y, i + (k << 23))`;
/// the result is normal wherever `s_expm1f.c` does it).
#[inline(always)]
fn add_exponent(y: f32, k: i32) -> f32 {
    f32::from_bits(y.to_bits().wrapping_add((k << 23) as u32))
}

/// `e^x - 1` in single precision, a port of glibc 2.36's `__expm1f`
/// (`sysdeps/ieee754/flt-32/s_expm1f.c`, fdlibm's `s_expm1.c` in float by Sun Microsystems,
/// 1993): `x = k·ln 2 + r` (`r` as `hi - lo` with a correction `c`), `e^r - 1` from a
/// rational approximation in `r²/2`, then scaled by `2^k`; every step a float operation in
/// the C source's order, so that it rounds exactly as the C code compiled without FMA does
/// (glibc builds it so on x86-64: there is no FMA variant of it). [`tanhf`] and float32
/// ELU (`TfLiteExpm1`) call it.
pub fn expm1f(x: f32) -> f32 {
    let mut x = x;
    let hx_signed = x.to_bits();
    let negative = hx_signed >> 31 != 0;
    let hx = hx_signed & 0x7fff_ffff;

    // Huge and non-finite arguments.
    if hx >= 0x4195_b844 {
        // |x| >= 27·ln 2.
        if hx >= 0x42b1_7218 {
            // |x| >= 88.721...
            if hx > 0x7f80_0000 {
                return x + x; // NaN
            }
            if hx == 0x7f80_0000 {
                return if negative { -1.0 } else { x }; // e^±inf - 1 = {inf, -1}
            }
            if x > O_THRESHOLD {
                return HUGE * HUGE; // overflow
            }
        }
        if negative {
            // x < -27·ln 2: -1 (inexact).
            return TINY - 1.0;
        }
    }

    // Argument reduction.
    let k: i32;
    let mut c = 0.0f32;
    if hx > 0x3eb1_7218 {
        // |x| > ln 2 / 2.
        let (hi, lo);
        if hx < 0x3F85_1592 {
            // And |x| < 1.5·ln 2.
            if negative {
                hi = x + LN2_HI;
                lo = -LN2_LO;
                k = -1;
            } else {
                hi = x - LN2_HI;
                lo = LN2_LO;
                k = 1;
            }
        } else {
            // C's float-to-int conversion truncates, as `as i32` does.
            k = (INV_LN2 * x + if negative { -0.5 } else { 0.5 }) as i32;
            let t = k as f32;
            hi = x - t * LN2_HI; // exact here
            lo = t * LN2_LO;
        }
        x = hi - lo;
        c = (hi - x) - lo;
    } else if hx < 0x3300_0000 {
        // |x| < 2^-25: x (with inexact when x != 0).
        let t = HUGE + x;
        return x - (t - (HUGE + x));
    } else {
        k = 0;
    }

    // x is now in the primary range.
    let hfx = 0.5 * x;
    let hxs = x * hfx;
    let r1 = 1.0 + hxs * (Q[0] + hxs * (Q[1] + hxs * (Q[2] + hxs * (Q[3] + hxs * Q[4]))));
    let t = 3.0 - r1 * hfx;
    let mut e = hxs * ((r1 - t) / (6.0 - x * t));
    if k == 0 {
        return x - (x * e - hxs); // c is 0
    }
    e = x * (e - c) - c;
    e -= hxs;
    if k == -1 {
        return 0.5 * (x - e) - 0.5;
    }
    if k == 1 {
        return if x < -0.25 {
            -2.0 * (e - (x + 0.5))
        } else {
            1.0 + 2.0 * (x - e)
        };
    }
    if k <= -2 || k > 56 {
        // e^x - 1 is e^x.
        let y = 1.0 - (e - x);
        return add_exponent(y, k) - 1.0;
    }
    if k < 23 {
        let t = f32::from_bits(0x3f80_0000 - (0x0100_0000 >> k)); // 1 - 2^-k
        let y = t - (e - x);
        add_exponent(y, k)
    } else {
        let t = f32::from_bits(((0x7f - k) as u32) << 23); // 2^-k
        let mut y = x - (e + t);
        y += 1.0;
        add_exponent(y, k)
    }
}

/// `tanh x` in single precision, equal to glibc's `tanhf` for every float input (the TFLM
/// wheel's float TANH and LSTM kernels call `std::tanh(float)`, which is glibc's `tanhf` on
/// x86-64 Linux). A port of glibc 2.36's `__tanhf` (`sysdeps/ieee754/flt-32/s_tanhf.c`,
/// fdlibm's `s_tanh.c` in float, Sun Microsystems 1993; x86-64 uses this generic file, with
/// no FMA or other multiarch variant, and `expm1f`'s `s_expm1f.c` likewise):
///
/// * `|x| < 2^-55`: `x · (1 + x)` (that is, `x`);
/// * `2^-55 <= |x| < 1`: `-t / (t + 2)` with `t = expm1(-2|x|)`;
/// * `1 <= |x| < 22`: `1 - 2 / (t + 2)` with `t = expm1(2|x|)`;
/// * `|x| >= 22`: `1 - 10^-30`, which is 1;
///
/// with the sign of `x`; `tanh(±inf) = ±1`, `tanh(NaN)` is NaN, `tanh(±0) = ±0`.
pub fn tanhf(x: f32) -> f32 {
    let jx = x.to_bits();
    let negative = jx >> 31 != 0;
    let ix = jx & 0x7fff_ffff;

    // x is inf or NaN.
    if ix >= 0x7f80_0000 {
        return if negative {
            1.0 / x - 1.0 // tanh(-inf) = -1, NaN
        } else {
            1.0 / x + 1.0 // tanh(+inf) = +1, NaN
        };
    }

    let z = if ix < 0x41b0_0000 {
        // |x| < 22.
        if ix == 0 {
            return x; // ±0
        }
        if ix < 0x2400_0000 {
            // |x| < 2^-55: tanh(x) = x.
            return x * (1.0 + x);
        }
        if ix >= 0x3f80_0000 {
            // |x| >= 1.
            let t = expm1f(2.0 * abs(x));
            1.0 - 2.0 / (t + 2.0)
        } else {
            let t = expm1f(-2.0 * abs(x));
            -t / (t + 2.0)
        }
    } else {
        // |x| >= 22: ±1 (inexact).
        1.0 - TINY
    };
    if negative {
        -z
    } else {
        z
    }
}

/// `|x|` (C's `fabsf`): the sign bit cleared.
#[inline(always)]
fn abs(x: f32) -> f32 {
    f32::from_bits(x.to_bits() & 0x7fff_ffff)
}

/// `a · b + c` rounded once, to nearest even (IEEE 754 `fusedMultiplyAdd`), in integer
/// arithmetic (no FPU has a double-precision FMA on the targets; `core` has none without
/// `std`). Special values (NaN, infinities, a zero factor) go through the plain expression,
/// whose single rounding is then exact, or give `c` itself.
pub fn fma(a: f64, b: f64, c: f64) -> f64 {
    if !a.is_finite() || !b.is_finite() || a == 0.0 || b == 0.0 {
        return a * b + c;
    }
    if !c.is_finite() {
        // The exact product is finite, even where `a * b` would overflow.
        return c;
    }
    let (sa, ea, ma) = decode(a);
    let (sb, eb, mb) = decode(b);
    let sp = sa ^ sb;
    // The exact product, normalised so that its top bit is bit 125 (room for a carry).
    let p = u128::from(ma) * u128::from(mb);
    let sh = p.leading_zeros() as i32 - 2;
    let (x, ex) = (p << sh, ea + eb - sh);
    if c == 0.0 {
        return round(x, ex, sp);
    }
    let (sc, ec, mc) = decode(c);
    let shc = u128::from(mc).leading_zeros() as i32 - 2;
    let (z, ez) = (u128::from(mc) << shc, ec - shc);
    // Both top bits at 125: the larger exponent (then the larger mantissa) is the larger
    // magnitude; the smaller is aligned to it, the bits shifted out kept as a sticky bit.
    let ((big, e, s), (small, es, ss)) = if (ex, x) >= (ez, z) {
        ((x, ex, sp), (z, ez, sc))
    } else {
        ((z, ez, sc), (x, ex, sp))
    };
    let d = (e - es) as u32;
    let small = if d >= 128 {
        u128::from(small != 0)
    } else {
        (small >> d) | u128::from(small & ((1u128 << d) - 1) != 0)
    };
    let r = if s == ss { big + small } else { big - small };
    if r == 0 {
        // An exact cancellation is +0 when rounding to nearest.
        return 0.0;
    }
    round(r, e, s)
}

/// `(sign, e, m)` with `|v| = m · 2^e`, `m < 2^53`, for finite non-zero `v`.
fn decode(v: f64) -> (bool, i32, u64) {
    let bits = v.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1 << 52) - 1);
    if exp == 0 {
        (bits >> 63 != 0, -1074, frac)
    } else {
        (bits >> 63 != 0, exp - 1075, frac | (1 << 52))
    }
}

/// `±r · 2^e` rounded to the nearest double (ties to even), `0 < r < 2^127`.
fn round(r: u128, e: i32, negative: bool) -> f64 {
    let top = 127 - r.leading_zeros() as i32;
    let lead = e + top;
    let sign = if negative { 1u64 << 63 } else { 0 };
    if lead > 1023 {
        return f64::from_bits(sign | 0x7FF0_0000_0000_0000);
    }
    // The bit of `r` that becomes the result's last (53 bits, or fewer when subnormal).
    let lsb = if lead >= -1022 { top - 52 } else { -1074 - e };
    let (mut m, mut q) = if lsb <= 0 {
        (r << (-lsb) as u32, e + lsb)
    } else if lsb >= 128 {
        // Below half the smallest subnormal.
        return f64::from_bits(sign);
    } else {
        let lsb = lsb as u32;
        let m = r >> lsb;
        let rem = r & ((1u128 << lsb) - 1);
        let half = 1u128 << (lsb - 1);
        let up = rem > half || (rem == half && m & 1 == 1);
        (m + u128::from(up), e + lsb as i32)
    };
    if m == 1 << 53 {
        m >>= 1;
        q += 1;
    }
    let m = m as u64;
    if m >= 1 << 52 {
        let biased = q + 52 + 1023;
        if biased >= 2047 {
            return f64::from_bits(sign | 0x7FF0_0000_0000_0000);
        }
        f64::from_bits(sign | (biased as u64) << 52 | (m - (1 << 52)))
    } else {
        // Subnormal (or zero): the exponent is the smallest.
        f64::from_bits(sign | m)
    }
}

/// `std::sqrt(float)` as the wheel computes it on x86-64 (`SQRTSS`): the correctly rounded
/// square root (round to nearest; a square root is never halfway), ±0 and +∞ as they are, a
/// NaN quieted, and x86-64's default NaN (`0xFFC0_0000`) for a negative input.
pub fn sqrtf(x: f32) -> f32 {
    let bits = x.to_bits();
    if x.is_nan() {
        return f32::from_bits(bits | 0x0040_0000);
    }
    if x == 0.0 || x == f32::INFINITY {
        return x;
    }
    if bits >> 31 != 0 {
        return f32::from_bits(0xFFC0_0000);
    }
    // x = m · 2^(e − 23), m of 24 bits (a subnormal's normalized).
    let (mut m, mut e) = match (bits >> 23) as i32 {
        0 => {
            let m = bits & 0x007F_FFFF;
            let shift = m.leading_zeros() as i32 - 8;
            (m << shift, -126 - shift)
        }
        biased => ((bits & 0x007F_FFFF) | 0x0080_0000, biased - 127),
    };
    // An even exponent: x = m · 2^(e − 23), m now below 2^25.
    if e & 1 != 0 {
        m <<= 1;
        e -= 1;
    }
    // √x = √(m · 2^23) · 2^(e/2 − 23): q = ⌊√(m · 2^23)⌋ has 24 bits (2^23 ≤ q < 2^24).
    let n = u64::from(m) << 23;
    let mut q = n.isqrt();
    // Up when √n > q + ½, i.e. n − q² > q (integers: never equal to q + ¼).
    if n - q * q > q {
        q += 1;
    }
    // The exponent's field plus q (its bit 23 the leading one: a q of 2^24 carries into it).
    f32::from_bits((((e / 2 + 126) as u32) << 23).wrapping_add(q as u32))
}

/// `1/c` and `log(c)` of glibc's `logf` table (`__logf_data.tab`, ARM's optimized routines).
const LOGF_TAB: [(f64, f64); 16] = [
    (
        f64::from_bits(0x3FF6_61EC_79F8_F3BE),
        f64::from_bits(0xBFD5_7BF7_808C_AADE),
    ),
    (
        f64::from_bits(0x3FF5_71ED_4AAF_883D),
        f64::from_bits(0xBFD2_BEF0_A7C0_6DDB),
    ),
    (
        f64::from_bits(0x3FF4_9539_F0F0_10B0),
        f64::from_bits(0xBFD0_1EAE_7F51_3A67),
    ),
    (
        f64::from_bits(0x3FF3_C995_B0B8_0385),
        f64::from_bits(0xBFCB_31D8_A682_24E9),
    ),
    (
        f64::from_bits(0x3FF3_0D19_0C88_64A5),
        f64::from_bits(0xBFC6_574F_0AC0_7758),
    ),
    (
        f64::from_bits(0x3FF2_5E22_7B0B_8EA0),
        f64::from_bits(0xBFC1_AA2B_C79C_8100),
    ),
    (
        f64::from_bits(0x3FF1_BB4A_4A1A_343F),
        f64::from_bits(0xBFBA_4E76_CE8C_0E5E),
    ),
    (
        f64::from_bits(0x3FF1_2358_F08A_E5BA),
        f64::from_bits(0xBFB1_973C_5A61_1CCC),
    ),
    (
        f64::from_bits(0x3FF0_953F_4199_00A7),
        f64::from_bits(0xBFA2_52F4_38E1_0C1E),
    ),
    (f64::from_bits(0x3FF0_0000_0000_0000), 0.0),
    (
        f64::from_bits(0x3FEE_608C_FD9A_47AC),
        f64::from_bits(0x3FAA_A5AA_5DF2_5984),
    ),
    (
        f64::from_bits(0x3FEC_A4B3_1F02_6AA0),
        f64::from_bits(0x3FBC_5E53_AA36_2EB4),
    ),
    (
        f64::from_bits(0x3FEB_2036_576A_FCE6),
        f64::from_bits(0x3FC5_26E5_7720_DB08),
    ),
    (
        f64::from_bits(0x3FE9_C2D1_63A1_AA2D),
        f64::from_bits(0x3FCB_C286_0D22_4770),
    ),
    (
        f64::from_bits(0x3FE8_86E6_0378_41ED),
        f64::from_bits(0x3FD1_058B_C8A0_7EE1),
    ),
    (
        f64::from_bits(0x3FE7_67DC_F553_4862),
        f64::from_bits(0x3FD4_0430_57B6_EE09),
    ),
];
/// `ln 2` (`__logf_data.ln2`).
const LOGF_LN2: f64 = f64::from_bits(0x3FE6_2E42_FEFA_39EF);
/// The polynomial's coefficients `A[0..3]` (`__logf_data.poly`).
const LOGF_A: [f64; 3] = [
    f64::from_bits(0xBFD0_0EA3_48B8_8334),
    f64::from_bits(0x3FD5_575B_0BE0_0B6A),
    f64::from_bits(0xBFDF_FFFE_F20A_4123),
];

/// `log x` in single precision, equal to glibc's `logf` as the TFLM wheel calls it
/// (`std::log(float)`): glibc 2.36's ARM algorithm (`sysdeps/ieee754/flt-32/e_logf.c`),
/// `x = 2^k·z`, `log x = log1p(z/c − 1) + log c + k·ln 2` with `c` from a 16-entry table and a
/// degree-3 polynomial, in double precision; x86-64 glibc runs its `-mfma` build there, where
/// GCC fuses five multiply-adds, computed here with the exact software [`fma`]. NaN for a
/// negative input (x86-64's default NaN), −∞ for ±0.
pub fn logf(x: f32) -> f32 {
    let mut ix = x.to_bits();
    if ix == 0x3F80_0000 {
        return 0.0;
    }
    if ix.wrapping_sub(0x0080_0000) >= 0x7F80_0000 - 0x0080_0000 {
        // Zero, subnormal, negative, infinite or NaN.
        if ix << 1 == 0 {
            return f32::NEG_INFINITY;
        }
        if ix == 0x7F80_0000 {
            return x;
        }
        if ix >> 31 != 0 || ix << 1 >= 0xFF00_0000 {
            // (x − x) / (x − x): a NaN's quieted self, else the default NaN.
            return if x.is_nan() {
                f32::from_bits(ix | 0x0040_0000)
            } else {
                f32::from_bits(0xFFC0_0000)
            };
        }
        // Subnormal: normalized.
        ix = (x * f32::from_bits(0x4B00_0000)).to_bits();
        ix = ix.wrapping_sub(23 << 23);
    }
    const OFF: u32 = 0x3F33_0000;
    let tmp = ix.wrapping_sub(OFF);
    let i = ((tmp >> (23 - 4)) % 16) as usize;
    let k = (tmp as i32) >> 23;
    let iz = ix.wrapping_sub(tmp & (0x1FF << 23));
    let (invc, logc) = LOGF_TAB[i];
    let z = f64::from(f32::from_bits(iz));
    let r = fma(z, invc, -1.0);
    let y0 = fma(f64::from(k), LOGF_LN2, logc);
    let r2 = r * r;
    let y = fma(LOGF_A[1], r, LOGF_A[2]);
    let y = fma(LOGF_A[0], r2, y);
    let y = fma(y, r2, y0 + r);
    y as f32
}

/// One of glibc's two `sincosf` coefficient sets (`__sincosf_table`, ARM's optimized
/// routines): the cosine polynomial `c0..c4` (negated in the second set, used in quadrants
/// 2 and 3) and the sine polynomial `s1..s3`.
struct SinCos {
    c: [f64; 5],
    s: [f64; 3],
}

/// `__sincosf_table[0]` and `[1]` (the second computes `−cos`).
const SINCOSF: [SinCos; 2] = {
    const C: [u64; 5] = [
        0x3FF0_0000_0000_0000,
        0xBFDF_FFFF_FD0C_621C,
        0x3FA5_5553_E106_8F19,
        0xBF56_C087_E89A_359D,
        0x3EF9_9343_027B_F8C3,
    ];
    const S: [f64; 3] = [
        f64::from_bits(0xBFC5_5554_5995_A603),
        f64::from_bits(0x3F81_1076_0523_0BC4),
        f64::from_bits(0xBF29_94EB_3774_CF24),
    ];
    [
        SinCos {
            c: [
                f64::from_bits(C[0]),
                f64::from_bits(C[1]),
                f64::from_bits(C[2]),
                f64::from_bits(C[3]),
                f64::from_bits(C[4]),
            ],
            s: S,
        },
        SinCos {
            c: [
                f64::from_bits(C[0] ^ 1 << 63),
                f64::from_bits(C[1] ^ 1 << 63),
                f64::from_bits(C[2] ^ 1 << 63),
                f64::from_bits(C[3] ^ 1 << 63),
                f64::from_bits(C[4] ^ 1 << 63),
            ],
            s: S,
        },
    ]
};
/// `2/π · 2^24` (`hpi_inv`, prescaled: the quadrant lands in bits 24..31).
const HPI_INV: f64 = f64::from_bits(0x4164_5F30_6DC9_C883);
/// `π/2` (`hpi`).
const HPI: f64 = f64::from_bits(0x3FF9_21FB_5444_2D18);
/// `2π · 2^-64` (`pi63`).
const PI63: f64 = f64::from_bits(0x3C19_21FB_5444_2D18);
/// `4/π` to 192 bits, 8 new bits an entry (`__inv_pio4`).
const INV_PIO4: [u32; 24] = [
    0xa2, 0xa2f9, 0xa2f983, 0xa2f9836e, 0xf9836e4e, 0x836e4e44, 0x6e4e4415, 0x4e441529, 0x441529fc,
    0x1529fc27, 0x29fc2757, 0xfc2757d1, 0x2757d1f5, 0x57d1f534, 0xd1f534dd, 0xf534ddc0, 0x34ddc0db,
    0xddc0db62, 0xc0db6295, 0xdb629599, 0x6295993c, 0x95993c43, 0x993c4390, 0x3c439041,
];

/// The top 12 bits of `x` without its sign (`abstop12`).
#[inline]
fn abstop12(x: f32) -> u32 {
    (x.to_bits() >> 20) & 0x7ff
}

/// `sinf_poly`: the sine polynomial of `x` (`x2 = x²`) in an even quadrant `n`, the cosine
/// polynomial in an odd one, rounded to single precision; every `a + b·c` fused.
fn sincos_poly(x: f64, x2: f64, p: &SinCos, n: i32) -> f32 {
    if n & 1 == 0 {
        let x3 = x * x2;
        let s1 = fma(x2, p.s[2], p.s[1]);
        let x7 = x3 * x2;
        let s = fma(x3, p.s[0], x);
        fma(x7, s1, s) as f32
    } else {
        let x4 = x2 * x2;
        let c2 = fma(x2, p.c[4], p.c[3]);
        let c1 = fma(x2, p.c[1], p.c[0]);
        let x6 = x4 * x2;
        let c = fma(x4, p.c[2], c1);
        fma(x6, c2, c) as f32
    }
}

/// `reduce_fast` for `|x| < 120`: `x − n·π/2` in `[−π/4, π/4]` and the quadrant `n`.
fn reduce_fast(x: f64) -> (f64, i32) {
    let r = x * HPI_INV;
    // `((int32_t) r + 0x800000) >> 24`: |r| < 2^31 here.
    let n = (r as i32).wrapping_add(0x80_0000) >> 24;
    (fma(-f64::from(n), HPI, x), n)
}

/// `reduce_large` for `2^7 <= |x| < ∞` (`xi` its bits): the exact 2.62 fixed-point
/// `x·4/π mod 4` from the 192-bit table, its remainder times `π/2` and the quadrant.
fn reduce_large(xi: u32) -> (f64, i32) {
    let at = ((xi >> 26) & 15) as usize;
    let shift = (xi >> 23) & 7;
    let m = ((xi & 0xff_ffff) | 0x80_0000) << shift;
    let res0 = u64::from(m.wrapping_mul(INV_PIO4[at]));
    let res1 = u64::from(m) * u64::from(INV_PIO4[at + 4]);
    let res2 = u64::from(m) * u64::from(INV_PIO4[at + 8]);
    let res0 = ((res2 >> 32) | (res0 << 32)).wrapping_add(res1);
    let n = res0.wrapping_add(1 << 61) >> 62;
    let res0 = res0.wrapping_sub(n << 62);
    ((res0 as i64) as f64 * PI63, n as i32)
}

/// `(x − x) / (x − x)` of an infinity or a NaN (`__math_invalidf`): a NaN's quieted self,
/// else x86-64's default NaN.
fn invalid(x: f32) -> f32 {
    if x.is_nan() {
        f32::from_bits(x.to_bits() | 0x0040_0000)
    } else {
        f32::from_bits(0xFFC0_0000)
    }
}

/// `sin x` (`cos x` when `cos`) in single precision, equal to glibc 2.36's `sinf`/`cosf`
/// (ARM's optimized routines, `sysdeps/ieee754/flt-32/s_sinf.c`, `s_cosf.c`, `s_sincosf.h`)
/// in its `-mfma` build that x86-64 selects: `x` reduced to `[−π/4, π/4]` and a quadrant
/// (one fused multiply-subtract below 120, the 192-bit `4/π` above), then an odd or even
/// polynomial in double precision with fused multiply-adds ([`fma`]).
fn sin_or_cos(y: f32, cos: bool) -> f32 {
    let x = f64::from(y);
    let top = abstop12(y);
    let (x, n, sign) = if top < abstop12(f32::from_bits(0x3F49_0FDB)) {
        // |y| < π/4.
        if top < abstop12(f32::from_bits(0x3980_0000)) {
            // |y| < 2^-12.
            return if cos { 1.0 } else { y };
        }
        return sincos_poly(x, x * x, &SINCOSF[0], i32::from(cos));
    } else if top < abstop12(120.0) {
        let (r, n) = reduce_fast(x);
        (r, n, n)
    } else if top < abstop12(f32::INFINITY) {
        let xi = y.to_bits();
        let (r, n) = reduce_large(xi);
        (r, n, n.wrapping_add((xi >> 31) as i32))
    } else {
        return invalid(y);
    };
    let s = if matches!(sign & 3, 1 | 2) { -1.0 } else { 1.0 };
    let p = &SINCOSF[usize::from(sign & 2 != 0)];
    sincos_poly(x * s, x * x, p, n ^ i32::from(cos))
}

/// `sin x` in single precision: glibc's `sinf` as the TFLM wheel calls it (`std::sin(float)`,
/// see `sin_or_cos`).
pub fn sinf(x: f32) -> f32 {
    sin_or_cos(x, false)
}

/// `cos x` in single precision: glibc's `cosf` as the TFLM wheel calls it (`std::cos(float)`,
/// see `sin_or_cos`).
pub fn cosf(x: f32) -> f32 {
    sin_or_cos(x, true)
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;

    /// splitmix64.
    fn next(s: &mut u64) -> u64 {
        *s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = *s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A double of every kind: random bits, near-1 mantissas, small exponents, specials.
    fn any_f64(s: &mut u64) -> f64 {
        let r = next(s);
        match r % 8 {
            0 => f64::from_bits(next(s)),
            1 => f64::from_bits(next(s) & 0x800F_FFFF_FFFF_FFFF), // subnormal
            2 => [
                0.0,
                -0.0,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::NAN,
                f64::MAX,
                f64::MIN_POSITIVE,
            ][(next(s) % 7) as usize],
            3 => 1.0 + (next(s) >> 12) as f64 * f64::EPSILON,
            4 => {
                f64::from_bits(0x3FF0_0000_0000_0000 | (next(s) & 0x800F_FFFF_FFFF_FFFF))
                    * (1 << (next(s) % 8)) as f64
            }
            _ => {
                let e = (next(s) % 200) as i64 - 100;
                f64::from_bits((((1023 + e) as u64) << 52) | (next(s) & 0x800F_FFFF_FFFF_FFFF))
            }
        }
    }

    fn same(a: f64, b: f64) -> bool {
        a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
    }

    /// The software FMA equals the host's (`f64::mul_add`: the instruction, or libm's exact
    /// software fallback) on 2 million triples of every kind, including cancellations.
    #[test]
    fn fma_equals_the_host() {
        let mut s = 0x5EED;
        for i in 0..2_000_000u32 {
            let (a, b) = (any_f64(&mut s), any_f64(&mut s));
            let c = match i % 4 {
                // Near-cancellation: c close to -(a·b).
                0 => -(a * b) * (1.0 + (next(&mut s) % 5) as f64 * f64::EPSILON),
                1 => -(a * b),
                _ => any_f64(&mut s),
            };
            let (got, want) = (fma(a, b, c), a.mul_add(b, c));
            assert!(
                same(got, want),
                "fma({a:e}, {b:e}, {c:e}) = {got:e}, host {want:e}"
            );
        }
    }

    /// glibc's `expf` without FMA (the five multiply-adds rounded twice), for the test's
    /// tolerance of a host without FMA.
    fn expf_unfused(x: f32) -> f32 {
        let z = INV_LN2_N * f64::from(x);
        let kd = z + SHIFT;
        let ki = kd.to_bits();
        let r = z - (kd - SHIFT);
        let s = f64::from_bits(EXP2_TABLE[(ki % 32) as usize].wrapping_add(ki << 47));
        let y = (C[0] * r + C[1]) * (r * r) + (C[2] * r + 1.0);
        (y * s) as f32
    }

    fn check_expf(bits: u32) {
        let x = f32::from_bits(bits);
        let (got, host) = (expf(x), x.exp());
        let ok = got.to_bits() == host.to_bits()
            || (got.is_nan() && host.is_nan())
            || (x.abs() < 88.0 && expf_unfused(x).to_bits() == host.to_bits());
        assert!(ok, "expf({x:e}) [{bits:#010x}] = {got:e}, host {host:e}");
    }

    /// [`expf`] equals the host's libm `expf` (glibc's on Linux, as the wheel links it) on
    /// every 4099th float and on every float in [-20, 0] spaced 97 apart.
    #[test]
    fn expf_equals_the_host_sampled() {
        for b in (0..=u32::MAX).step_by(4099) {
            check_expf(b);
        }
        for b in (0..0x41A0_0000u32).step_by(97) {
            check_expf(b | 0x8000_0000);
        }
        for x in [
            0.0f32,
            -0.0,
            1.0,
            -1.0,
            88.72,
            -103.9,
            -104.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
        ] {
            check_expf(x.to_bits());
        }
    }

    /// Every float (about 5 minutes of CPU in release): `cargo test --release -p synaptic-run --lib
    /// -- --ignored expf_every_float`.
    #[test]
    #[ignore]
    fn expf_every_float() {
        for b in 0..=u32::MAX {
            check_expf(b);
        }
    }

    fn check_tanhf(bits: u32) {
        let x = f32::from_bits(bits);
        let (got, host) = (tanhf(x), x.tanh());
        assert!(
            got.to_bits() == host.to_bits() || (got.is_nan() && host.is_nan()),
            "tanhf({x:e}) [{bits:#010x}] = {got:e} [{:#010x}], host {host:e} [{:#010x}]",
            got.to_bits(),
            host.to_bits()
        );
    }

    /// [`tanhf`] equals the host's libm `tanhf` (glibc's on Linux, as the wheel links it),
    /// bit for bit, on every 97th float, on every 7th float in [-10, 10] (every 61·7th in a
    /// debug build), and on the specials and the thresholds of `s_tanhf.c` and `s_expm1f.c`
    /// with their neighbours. Returns how many inputs it compared. Only on x86-64, the wheel's
    /// platform: 32-bit x86 glibc has its own `tanhf` (x87), which this port is not.
    /// [`exp`] against the host's `exp` (glibc's on x86-64, the wheel's; its `-mfma` build
    /// where the CPU has FMA): random doubles over the whole range and densely where the
    /// detection kernel's box sizes fall (|x| < 40), the subnormal and overflowing results,
    /// the special values.
    #[test]
    #[cfg_attr(not(target_arch = "x86_64"), ignore)]
    fn exp_equals_the_host_sampled() {
        let check = |x: f64| {
            let (ours, host) = (exp(x), x.exp());
            assert!(
                ours.to_bits() == host.to_bits() || (ours.is_nan() && host.is_nan()),
                "exp({x:e}) ({:#x}): {ours:e}, the host {host:e}",
                x.to_bits()
            );
        };
        let mut s = 0x5eed_e4b0u64;
        let n = if cfg!(debug_assertions) {
            200_000
        } else {
            2_000_000
        };
        for _ in 0..n {
            let b = next(&mut s);
            check(f64::from_bits(b));
            let u = (b >> 11) as f64 / (1u64 << 53) as f64;
            check((u * 2.0 - 1.0) * 40.0);
            check(-708.0 - u * 38.0); // subnormal results
            check(700.0 + u * 10.0); // scaled above, and overflow
        }
        for x in [
            0.0,
            -0.0,
            1e-300,
            -1e-300,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            709.782712893384,
            -745.1332191019411,
            -745.1332191019412,
            1.0,
            -1.0,
        ] {
            check(x);
        }
    }

    #[test]
    #[cfg_attr(not(target_arch = "x86_64"), ignore)]
    fn tanhf_equals_the_host_sampled() {
        let mut n = 0u64;
        for b in (0..=u32::MAX).step_by(97) {
            check_tanhf(b);
            n += 1;
        }
        let near = if cfg!(debug_assertions) { 7 * 61 } else { 7 };
        for b in (0..=10.0f32.to_bits()).step_by(near) {
            check_tanhf(b);
            check_tanhf(b | 0x8000_0000);
            n += 2;
        }
        let mut specials = std::vec![
            0.0f32.to_bits(),
            f32::INFINITY.to_bits(),
            f32::NAN.to_bits(),
            0x7FC0_0001, // NaN payloads
            0x7F80_0001,
            0x7FFF_FFFF,
            1,           // the smallest subnormal
            0x0000_1234, // subnormals
            0x007F_FFFF, // the largest subnormal
            f32::MIN_POSITIVE.to_bits(),
            f32::MAX.to_bits(),
        ];
        // The thresholds on `ix` and `hx` (`2^-55`, 1, 22; the `expm1f` ones, halved, as
        // `expm1f` gets `2|x|`: 2^-25, ln 2 / 2, 1.5·ln 2, 27·ln 2, 88.72) and neighbours.
        for t in [
            0x2400_0000u32,
            0x3F80_0000,
            0x41B0_0000,
            0x3300_0000 - (1 << 23),
            0x3EB1_7218 - (1 << 23),
            0x3F85_1592 - (1 << 23),
            0x4195_B844 - (1 << 23),
            0x42B1_7218 - (1 << 23),
        ] {
            for d in 0..=8 {
                specials.push(t + d - 4);
            }
        }
        for &b in &specials {
            check_tanhf(b);
            check_tanhf(b | 0x8000_0000);
            n += 2;
        }
        assert_eq!(tanhf(0.0).to_bits(), 0);
        assert_eq!(tanhf(-0.0).to_bits(), 0x8000_0000);
        assert_eq!(tanhf(f32::INFINITY), 1.0);
        assert_eq!(tanhf(f32::NEG_INFINITY), -1.0);
        assert_eq!(tanhf(22.0), 1.0);
        assert!(tanhf(f32::NAN).is_nan());
        assert_eq!(tanhf(f32::from_bits(1)).to_bits(), 1);
        std::println!("tanhf: {n} inputs equal the host's");
    }

    /// Every float (about 20 seconds in release): `cargo test --release -p synaptic-run --lib --
    /// --ignored tanhf_every_float`.
    #[test]
    #[ignore]
    fn tanhf_every_float() {
        for b in 0..=u32::MAX {
            check_tanhf(b);
        }
    }

    #[test]
    fn clamp_is_tflm_s() {
        let r = FloatRange::new(Activation::None);
        assert_eq!(r.apply(f32::INFINITY), f32::MAX);
        assert_eq!(r.apply(f32::NEG_INFINITY), f32::MIN);
        assert!(r.apply(f32::NAN).is_nan());
        let relu = FloatRange::new(Activation::Relu);
        assert_eq!(relu.apply(-0.0).to_bits(), (-0.0f32).to_bits());
        assert_eq!(relu.apply(-1.5), 0.0);
        let relu6 = FloatRange::new(Activation::Relu6);
        assert_eq!(relu6.apply(7.0), 6.0);
        assert!(relu6.apply(f32::NAN).is_nan());
    }

    /// [`sqrtf`] equals the host's correctly rounded `f32::sqrt` on the edges (zeros,
    /// subnormals, the largest float, powers of two and their neighbours) and on a sweep of
    /// bit patterns; NaNs as x86-64 makes them.
    #[test]
    fn sqrtf_is_the_host_s() {
        let mut x = 0x9E37_79B9u32;
        let mut values: std::vec::Vec<u32> = std::vec![
            0,
            1,
            2,
            3,
            0x007F_FFFF,
            0x0080_0000,
            0x0080_0001,
            0x3F80_0000,
            0x3F80_0001,
            0x3F7F_FFFF,
            0x4000_0000,
            0x7F7F_FFFF,
            0x7F80_0000,
        ];
        for _ in 0..1_000_000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            values.push(x & 0x7FFF_FFFF);
        }
        for b in values {
            let v = f32::from_bits(b);
            if v.is_nan() {
                assert_eq!(sqrtf(v).to_bits(), b | 0x0040_0000);
                continue;
            }
            assert_eq!(
                sqrtf(v).to_bits(),
                v.sqrt().to_bits(),
                "sqrt {v:e} ({b:#x})"
            );
        }
        assert_eq!(sqrtf(-0.0).to_bits(), 0x8000_0000);
        assert_eq!(sqrtf(-1.0).to_bits(), 0xFFC0_0000);
        assert_eq!(sqrtf(f32::NEG_INFINITY).to_bits(), 0xFFC0_0000);
    }

    /// `logf` equals the host's (glibc's `logf`, the wheel's `std::log(float)`) on every
    /// 31st float from the smallest subnormal to infinity, and on the special values.
    #[test]
    fn logf_equals_the_host() {
        let mut b = 1u32;
        while b < 0x7F80_0000 {
            let x = f32::from_bits(b);
            assert_eq!(logf(x).to_bits(), x.ln().to_bits(), "{x:e}");
            b += 31;
        }
        for x in [0.0f32, -0.0, 1.0, f32::INFINITY] {
            assert_eq!(logf(x).to_bits(), x.ln().to_bits(), "{x:e}");
        }
        assert!(logf(-1.0).is_nan() && logf(f32::NAN).is_nan());
    }

    /// `sinf` and `cosf` equal the host's (glibc's, the wheel's `std::sin`/`std::cos`) on
    /// every 211th float of both signs (all three reductions, tiny and huge values) and on
    /// the special values.
    #[test]
    fn sinf_cosf_equal_the_host() {
        let mut b = 0u32;
        while b < 0x7F80_0000 {
            for x in [f32::from_bits(b), -f32::from_bits(b)] {
                assert_eq!(sinf(x).to_bits(), x.sin().to_bits(), "sin {x:e}");
                assert_eq!(cosf(x).to_bits(), x.cos().to_bits(), "cos {x:e}");
            }
            b += 211;
        }
        for x in [f32::INFINITY, f32::NEG_INFINITY, f32::NAN] {
            assert_eq!(sinf(x).to_bits(), x.sin().to_bits(), "sin {x:e}");
            assert_eq!(cosf(x).to_bits(), x.cos().to_bits(), "cos {x:e}");
        }
    }
}
