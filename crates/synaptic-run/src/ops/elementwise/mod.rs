//! The elementwise family: one output element from the inputs' elements at its position —
//! the broadcasting binary operators ADD, SUB, MUL, DIV, SQUARED_DIFFERENCE, MINIMUM, MAXIMUM
//! over what they share ([`binary`]), the activations LOGISTIC, RELU, RELU6, LEAKY_RELU,
//! ELU ([`elu`]), HARD_SWISH ([`hard_swish`]), PRELU ([`prelu`]) and TANH ([`tanh`]), ABS and
//! RSQRT ([`abs_rsqrt`]), float32's FLOOR_DIV and FLOOR_MOD ([`floor_div_mod`]), NEG, FLOOR,
//! CEIL, SQUARE, SQRT, ROUND, EXP, SIN, COS and LOG ([`float_unary`]),
//! the comparisons EQUAL, NOT_EQUAL, GREATER, GREATER_EQUAL, LESS, LESS_EQUAL ([`comparisons`]),
//! LOGICAL_AND, LOGICAL_OR, LOGICAL_NOT ([`logical`]), ADD_N ([`add_n`]: any number of
//! inputs), SELECT_V2 ([`select_v2`]: a three-way broadcast), and the conversions QUANTIZE,
//! DEQUANTIZE and CAST.

/// A float32 element-wise kernel `$kernel` of operator `$name`: each output `$value(x)` of
/// its input's element (no parameters), element-wise in place where the plan overlaps it.
macro_rules! f32_unary_kernel {
    ($name:literal, $kernel:ident, $value:path) => {
        #[doc = concat!("The ", $name, " kernel, float32.")]
        pub struct $kernel;

        impl Kernel for $kernel {
            const NAME: &'static str = $name;
            const MAX_INPUTS: usize = 1;
            type Params = ();

            #[inline]
            fn run(_: &(), io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
                let x = io.f32(0)?;
                let out = io.out_f32()?;
                KernelError::check_len($name, Operand::Output, x.len(), out.len())?;
                for (o, &v) in out.iter_mut().zip(x) {
                    *o = $value(v);
                }
                Ok(())
            }

            fn contract(_: &(), k: usize, out: Geometry) -> Option<Contract> {
                (k == 0).then(|| Contract::elementwise(out.elems, 4, 4))
            }

            fn run_in_place(
                _: &(),
                io: &mut InPlaceOperands<'_, '_>,
            ) -> Result<usize, KernelError> {
                let n = io.out()?.elems;
                let at = io.at;
                check($name, || Contract::elementwise(n, 4, 4), io.buf, &at)?;
                drive::<4>(io.buf, at.output, n, at.direction, |buf, j| {
                    Ok($value(LeF32(&buf[at.input..]).at(j)).to_le_bytes())
                })?;
                Ok(4 * n)
            }
        }
    };
}

/// An int8 element-wise kernel `$kernel` of operator `$name`: each output `p.value(x)` of its
/// input's element, `p` its parameters (`$params`, with an `fn value(&self, i8) -> i8`),
/// element-wise in place where the plan overlaps it.
macro_rules! i8_unary_kernel {
    ($name:literal, $kernel:ident, $params:ty) => {
        #[doc = concat!("The ", $name, " kernel, int8.")]
        pub struct $kernel;

        impl Kernel for $kernel {
            const NAME: &'static str = $name;
            const MAX_INPUTS: usize = 1;
            type Params = $params;

            #[inline]
            fn run(p: &$params, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
                let x = io.i8(0)?;
                let out = io.out_i8()?;
                KernelError::check_len($name, Operand::Output, x.len(), out.len())?;
                for (&v, o) in x.iter().zip(out.iter_mut()) {
                    *o = p.value(v);
                }
                Ok(())
            }

            fn contract(_p: &$params, k: usize, out: Geometry) -> Option<Contract> {
                (k == 0).then(|| Contract::elementwise(out.elems, 1, 1))
            }

            fn run_in_place(
                p: &$params,
                io: &mut InPlaceOperands<'_, '_>,
            ) -> Result<usize, KernelError> {
                let n = io.out()?.elems;
                let at = io.at;
                check($name, || Contract::elementwise(n, 1, 1), io.buf, &at)?;
                drive::<1>(io.buf, at.output, n, at.direction, |buf, j| {
                    Ok([p.value(x8(buf, at.input, j)) as u8])
                })?;
                Ok(n)
            }
        }
    };
}

/// [`i8_unary_kernel`]'s int16 twin: each output `p.value_i16(x)` (`$params` with an
/// `fn value_i16(&self, i16) -> i16`); `$only`, the builtins it runs if not all of its module's.
macro_rules! i16_unary_kernel {
    ($name:literal, $kernel:ident, $params:ty $(, $only:expr)?) => {
        #[doc = concat!("The ", $name, " kernel, int16.")]
        pub struct $kernel;

        impl Kernel for $kernel {
            const NAME: &'static str = $name;
            $(const ONLY: &'static [i32] = $only;)?
            const MAX_INPUTS: usize = 1;
            type Params = $params;

            fn run(p: &$params, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
                let x = io.i16(0)?;
                let out = io.out_i16()?;
                KernelError::check_len($name, Operand::Output, x.len(), out.len())?;
                for (&v, o) in x.iter().zip(out.iter_mut()) {
                    *o = p.value_i16(v);
                }
                Ok(())
            }

            fn contract(_p: &$params, k: usize, out: Geometry) -> Option<Contract> {
                (k == 0).then(|| Contract::elementwise(out.elems, 2, 2))
            }

            fn run_in_place(
                p: &$params,
                io: &mut InPlaceOperands<'_, '_>,
            ) -> Result<usize, KernelError> {
                let n = io.out()?.elems;
                let at = io.at;
                check($name, || Contract::elementwise(n, 2, 2), io.buf, &at)?;
                drive::<2>(io.buf, at.output, n, at.direction, |buf, j| {
                    let b = &buf[at.input + 2 * j..at.input + 2 * j + 2];
                    Ok(p.value_i16(i16::from_le_bytes([b[0], b[1]])).to_le_bytes())
                })?;
                Ok(2 * n)
            }
        }
    };
}

pub mod abs_rsqrt;
pub mod add;
pub mod add_n;
pub mod binary;
pub mod cast;
pub mod comparisons;
pub mod dequantize;
pub mod div;
pub mod elu;
pub mod float_unary;
pub mod floor_div_mod;
pub mod hard_swish;
pub mod leaky_relu;
pub mod logical;
pub mod logistic;
pub mod minimum_maximum;
pub mod mul;
pub mod prelu;
pub mod quantize;
pub mod relu;
pub mod select_v2;
pub mod squared_difference;
pub mod sub;
pub mod tanh;
