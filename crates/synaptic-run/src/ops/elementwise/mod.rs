//! The elementwise family: one output element from the inputs' elements at its position —
//! the broadcasting binary operators ADD, SUB, MUL, DIV, SQUARED_DIFFERENCE, MINIMUM, MAXIMUM
//! over what they share ([`binary`]), the activations LOGISTIC, RELU and RELU6, float32's
//! NEG, FLOOR, CEIL and SQUARE ([`float_unary`]), and the conversions QUANTIZE, DEQUANTIZE
//! and CAST.

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

pub mod add;
pub mod binary;
pub mod cast;
pub mod dequantize;
pub mod div;
pub mod float_unary;
pub mod logistic;
pub mod minimum_maximum;
pub mod mul;
pub mod quantize;
pub mod relu;
pub mod squared_difference;
pub mod sub;
