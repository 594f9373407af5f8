//! `synmem ops`: the operator table — every operator TFLM's op resolver registers
//! (`MicroMutableOpResolver`, tflite-micro at 90b983c: `data/tflm_ops.json`, one entry per
//! `Add…` method, with the data types its reference kernel's `Eval` accepts), the data types
//! synaptic-run runs for it (`synaptic_run::ops::kernel_types` of the kernels the operator's
//! name maps to, `kinds_of`), and TFLM's types it does not. Text, `--json`, or `--markdown`
//! (what `docs/operators.md` is: a test keeps the two equal).

use crate::common::{print_json, Failure};
use serde::{Deserialize, Serialize};

/// TFLM's table, compiled in.
const TFLM_OPS: &str = include_str!("../data/tflm_ops.json");

/// One operator TFLM's resolver registers (an entry of `data/tflm_ops.json`).
#[derive(Deserialize)]
struct TflmOp {
    /// TFLite's builtin name, or the custom code the resolver registers.
    name: String,
    /// `builtin` or `custom`.
    kind: String,
    /// The resolver's method.
    method: String,
    /// The data types TFLM's reference kernel accepts (its main input's).
    types: Vec<String>,
    /// What the types do not say.
    notes: String,
}

/// One row of the table.
#[derive(Serialize, Debug, PartialEq)]
pub(crate) struct Row {
    /// TFLite's builtin name, or the custom code.
    pub name: String,
    /// `builtin` or `custom`.
    pub kind: String,
    /// TFLM's resolver method.
    pub method: String,
    /// The data types TFLM runs.
    pub tflm: Vec<String>,
    /// The data types synaptic-run runs (empty: the operator is not implemented).
    pub ours: Vec<String>,
    /// TFLM's types synaptic-run does not run.
    pub missing: Vec<String>,
    /// TFLM's notes on its kernel.
    pub notes: String,
}

/// The whole table and its counts.
#[derive(Serialize)]
pub(crate) struct Table {
    /// Where TFLM's side comes from.
    pub source: &'static str,
    /// Operators TFLM's resolver registers.
    pub tflm_operators: usize,
    /// Of those, the ones synaptic-run runs at some data type.
    pub implemented: usize,
    /// Of those, the ones it runs at every data type TFLM runs.
    pub complete: usize,
    /// Every operator, in the resolver's order.
    pub operators: Vec<Row>,
}

/// Builds the table from TFLM's list and this build of synaptic-run.
pub(crate) fn table() -> Result<Table, Failure> {
    let tflm: Vec<TflmOp> = serde_json::from_str(TFLM_OPS)
        .map_err(|e| Failure(format!("data/tflm_ops.json: {e}"), 1))?;
    let operators: Vec<Row> = tflm
        .into_iter()
        .map(|t| {
            let kinds = synaptic_run::ops::kinds_of(&t.name).unwrap_or(0);
            let mut ours: Vec<String> = Vec::new();
            for k in (0..64u32).filter(|k| kinds >> k & 1 == 1) {
                for ty in synaptic_run::ops::kernel_types(k) {
                    if !ours.iter().any(|o| o == ty) {
                        ours.push((*ty).to_string());
                    }
                }
            }
            // In TFLM's order first, then ours that TFLM's list does not name.
            ours.sort_by_key(|o| t.types.iter().position(|x| x == o).unwrap_or(usize::MAX));
            let missing = t
                .types
                .iter()
                .filter(|x| !ours.contains(x))
                .cloned()
                .collect();
            Row {
                name: t.name,
                kind: t.kind,
                method: t.method,
                tflm: t.types,
                ours,
                missing,
                notes: t.notes,
            }
        })
        .collect();
    let implemented = operators.iter().filter(|r| !r.ours.is_empty()).count();
    let complete = operators
        .iter()
        .filter(|r| !r.ours.is_empty() && r.missing.is_empty())
        .count();
    Ok(Table {
        source: "tflite-micro 90b983c: micro_mutable_op_resolver.h and each kernel's Eval",
        tflm_operators: operators.len(),
        implemented,
        complete,
        operators,
    })
}

/// `types` space-separated, `-` for none.
fn list(types: &[String]) -> String {
    if types.is_empty() {
        "-".into()
    } else {
        types.join(" ")
    }
}

/// The summary line.
fn summary(t: &Table) -> String {
    format!(
        "{} of TFLM's {} operators run ({} at every data type TFLM runs); {} not implemented",
        t.implemented,
        t.tflm_operators,
        t.complete,
        t.tflm_operators - t.implemented
    )
}

/// The table as text: one line an operator.
pub(crate) fn text(t: &Table) -> String {
    let mut s = format!(
        "{:<38} {:<44} {}\n",
        "operator", "synaptic-run runs", "TFLM runs, synaptic-run not"
    );
    for r in &t.operators {
        s += &format!(
            "{:<38} {:<44} {}\n",
            r.name,
            list(&r.ours),
            list(&r.missing)
        );
    }
    s += &summary(t);
    s.push('\n');
    s
}

/// The table as Markdown (`docs/operators.md`).
pub(crate) fn markdown(t: &Table) -> String {
    let mut s = String::from(
        "# Operators\n\n<!-- Generated by `synmem ops --markdown > docs/operators.md`; \
         `cargo test -p synmem` fails when it differs. -->\n\n",
    );
    s += &format!(
        "Every operator TFLM's op resolver registers ({}), the data types TFLM's reference \
         kernel runs (its main input's), the ones synaptic-run runs, and TFLM's it does not. \
         {}.\n\n",
        t.source,
        summary(t)
    );
    s += "| operator | kind | TFLM | synaptic-run | not yet |\n|---|---|---|---|---|\n";
    for r in &t.operators {
        s += &format!(
            "| {} | {} | {} | {} | {} |\n",
            r.name,
            r.kind,
            list(&r.tflm),
            list(&r.ours),
            list(&r.missing)
        );
    }
    s
}

/// Runs `synmem ops [--json | --markdown]`.
pub(crate) fn run(json: bool, md: bool) -> Result<u8, Failure> {
    let t = table()?;
    if json {
        print_json(&t)?;
    } else if md {
        print!("{}", markdown(&t));
    } else {
        print!("{}", text(&t));
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `docs/operators.md` is what `synmem ops --markdown` prints: regenerate it with that
    /// command when an operator or a data type is added.
    #[test]
    fn docs_operators_md_is_generated() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/operators.md");
        let doc = std::fs::read_to_string(path).unwrap_or_default();
        let want = markdown(&table().unwrap_or_else(|f| panic!("{}", f.0)));
        assert!(
            doc == want,
            "docs/operators.md is stale: run `synmem ops --markdown > docs/operators.md`"
        );
    }

    /// Every operator synaptic-run runs is in TFLM's list under the name its kernels take,
    /// so the table counts each one.
    #[test]
    fn every_operator_we_run_is_in_the_table() {
        let t = table().unwrap_or_else(|f| panic!("{}", f.0));
        for name in synaptic_run::ops::operator_names(u64::MAX) {
            let row = t.operators.iter().find(|r| r.name == name);
            assert!(
                row.is_some_and(|r| !r.ours.is_empty()),
                "{name}: not in TFLM's table, or no data type"
            );
        }
        // Spot checks of TFLM's side and ours.
        let fc = t
            .operators
            .iter()
            .find(|r| r.name == "FULLY_CONNECTED")
            .unwrap();
        assert_eq!(fc.ours, ["float32", "int8"]);
        assert!(fc.missing.contains(&"int16".to_string()));
        let abs = t.operators.iter().find(|r| r.name == "ABS").unwrap();
        assert!(abs.ours.is_empty() && abs.missing == abs.tflm);
    }
}
