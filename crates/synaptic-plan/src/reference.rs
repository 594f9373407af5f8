//! Readers for the shared reference data: the models README's figure table and the
//! `lifetimes/<model>.csv` tables.

use crate::analysis::{Analysis, SizingOptions};
use crate::error::ImportError;
use crate::lifetime::Lifetime;
use crate::model::{Model, DEFAULT_MAX_FILE_BYTES};
use crate::text::printable;
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// One row of the models README's reference table (sizes in bytes; `None` where the README
/// says "fails" or "-").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReferenceFigures {
    /// Model name (file stem).
    pub model: String,
    /// Bytes of constant buffers.
    pub weights: u64,
    /// Bytes of all non-constant tensors.
    pub act_sum: u64,
    /// Live-set lower bound.
    pub live_lb: u64,
    /// TFLM's planned head (activations + kernel scratch).
    pub tflm_head: Option<u64>,
}

/// Parses the `| file | … |` table of the models README.
///
/// ```
/// let text = "| file | source path | sha256 (first 12) | weights | act sum | live LB | TFLM head | TFLM total | TFLM min |\n\
///             |---|---|---|---|---|---|---|---|---|\n\
///             | a.tflite | x | y | 10 | 20 | 16 | fails | fails | - |\n";
/// let rows = synaptic_plan::reference::parse_readme_table(text);
/// assert_eq!(rows[0].model, "a");
/// assert_eq!((rows[0].weights, rows[0].act_sum, rows[0].live_lb, rows[0].tflm_head), (10, 20, 16, None));
/// ```
pub fn parse_readme_table(text: &str) -> Vec<ReferenceFigures> {
    let mut out = Vec::new();
    for line in text.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        // Leading and trailing empty cells around 9 columns.
        if cells.len() < 11 || !cells[1].ends_with(".tflite") {
            continue;
        }
        let num = |s: &str| s.parse::<u64>().ok();
        let (Some(weights), Some(act_sum), Some(live_lb)) =
            (num(cells[4]), num(cells[5]), num(cells[6]))
        else {
            continue;
        };
        out.push(ReferenceFigures {
            model: cells[1].trim_end_matches(".tflite").to_string(),
            weights,
            act_sum,
            live_lb,
            tflm_head: num(cells[7]),
        });
    }
    out
}

/// One row of a `lifetimes/<model>.csv` table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LifetimeRow {
    /// Tensor index.
    pub tensor: usize,
    /// Tensor name.
    pub name: String,
    /// Short dtype name (`i8`, `f32`, …).
    pub dtype: String,
    /// Shape, dimensions joined by `x` (empty for a scalar).
    pub shape: String,
    /// Bytes.
    pub bytes: u64,
    /// First scope.
    pub first_scope: usize,
    /// Last scope.
    pub last_scope: usize,
}

/// Parses a lifetimes CSV (`tensor,name,dtype,shape,bytes,first_scope,last_scope`). Names may
/// contain commas only if quoted; the numeric columns are taken from the right.
pub fn parse_lifetimes_csv(text: &str) -> Result<Vec<LifetimeRow>, String> {
    let mut rows = Vec::new();
    for (n, line) in text.lines().enumerate().skip(1) {
        if line.trim().is_empty() {
            continue;
        }
        let cells: Vec<&str> = line.split(',').collect();
        if cells.len() < 7 {
            return Err(format!("line {}: expected 7 columns", n + 1));
        }
        let k = cells.len();
        let p = |s: &str| {
            s.trim()
                .parse::<u64>()
                .map_err(|e| format!("line {}: {e}", n + 1))
        };
        rows.push(LifetimeRow {
            tensor: p(cells[0])? as usize,
            name: cells[1..k - 5].join(",").trim_matches('"').to_string(),
            dtype: cells[k - 5].to_string(),
            shape: cells[k - 4].to_string(),
            bytes: p(cells[k - 3])?,
            first_scope: p(cells[k - 2])? as usize,
            last_scope: p(cells[k - 1])? as usize,
        });
    }
    Ok(rows)
}

/// The rows this crate computes for `model`, in the CSV's form.
pub fn lifetime_rows(model: &Model, lifetimes: &[Lifetime]) -> Vec<LifetimeRow> {
    lifetimes
        .iter()
        .map(|l| {
            let t = &model.tensors[l.tensor];
            LifetimeRow {
                tensor: t.index,
                name: t.name.clone(),
                dtype: t.dtype.short_name().to_string(),
                shape: t.shape_string(),
                bytes: t.bytes,
                first_scope: l.first_scope,
                last_scope: l.last_scope,
            }
        })
        .collect()
}

/// One line of the planner survey.
#[derive(Clone, Debug)]
pub struct SurveyRow {
    /// The model file.
    pub path: PathBuf,
    /// The model's name (file stem; the analysis's name when it succeeded).
    pub model: String,
    /// The analysis, or why the file could not be imported or planned.
    pub analysis: Result<Analysis, ImportError>,
    /// Reference figures, when the README lists the model.
    pub reference: Option<ReferenceFigures>,
}

/// Analyses every `*.tflite` in `dir` (sorted by name) with `options`, pairing each with its
/// README figures when `dir/README.md` has them. A file that cannot be imported or planned
/// gets a row with its error and the survey goes on; only an unreadable directory is an error.
pub fn survey(dir: &Path, options: &SizingOptions) -> Result<Vec<SurveyRow>, ImportError> {
    survey_limited(dir, options, DEFAULT_MAX_FILE_BYTES)
}

/// [`survey`], reading model files of at most `max_file_bytes` ([`Model::from_file_limited`]).
pub fn survey_limited(
    dir: &Path,
    options: &SizingOptions,
    max_file_bytes: u64,
) -> Result<Vec<SurveyRow>, ImportError> {
    let io = |e: std::io::Error| ImportError::Io {
        path: dir.display().to_string(),
        detail: e.to_string(),
    };
    let refs = std::fs::read_to_string(dir.join("README.md"))
        .map(|t| parse_readme_table(&t))
        .unwrap_or_default();
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .map_err(io)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "tflite"))
        .collect();
    paths.sort();
    let mut rows = Vec::new();
    for path in paths {
        let model = path
            .file_stem()
            .map_or(String::new(), |s| s.to_string_lossy().into_owned());
        let analysis =
            Model::from_file_limited(&path, max_file_bytes).and_then(|m| Analysis::new(m, options));
        let reference = refs.iter().find(|r| r.model == model).cloned();
        rows.push(SurveyRow {
            path,
            model,
            analysis,
            reference,
        });
    }
    Ok(rows)
}

/// The survey as a text table: model, act sum, live LB, greedy-by-size, planned, TFLM head,
/// ratio to the bound, proven, planning time (ms); a failed model's row says `error:` and why;
/// and a total line with Σ planned / Σ bounds (over the models that were planned; the failed
/// ones are counted at its end).
pub fn survey_table(rows: &[SurveyRow]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<30} {:>9} {:>9} {:>9} {:>9} {:>9} {:>7} {:>6} {:>10}",
        "model",
        "act sum",
        "live LB",
        "greedy",
        "planned",
        "TFLM head",
        "ratio",
        "proven",
        "time(ms)"
    );
    let (mut sp, mut sb, mut failed) = (0u64, 0u64, 0usize);
    for r in rows {
        let a = match &r.analysis {
            Ok(a) => a,
            Err(e) => {
                failed += 1;
                let _ = writeln!(s, "{:<30} error: {e}", printable(&r.model));
                continue;
            }
        };
        let rep = &a.report;
        sp += rep.planned_activation_bytes;
        sb += rep.live_lower_bound_bytes;
        let head = r
            .reference
            .as_ref()
            .and_then(|f| f.tflm_head)
            .map_or("-".to_string(), |h| h.to_string());
        let _ = writeln!(
            s,
            "{:<30} {:>9} {:>9} {:>9} {:>9} {:>9} {:>7.4} {:>6} {:>10.3}",
            printable(&rep.model),
            rep.activation_sum_bytes,
            rep.live_lower_bound_bytes,
            a.activation_plan.stats.greedy_bytes,
            rep.planned_activation_bytes,
            head,
            rep.ratio_to_lower_bound,
            if rep.proven_optimal { "yes" } else { "no" },
            a.activation_plan.stats.micros as f64 / 1000.0
        );
    }
    let _ = write!(
        s,
        "total: planned {sp} B, live bounds {sb} B, ratio {:.4}",
        if sb == 0 { 1.0 } else { sp as f64 / sb as f64 }
    );
    if failed > 0 {
        let _ = write!(s, "; {failed} of {} models failed", rows.len());
    }
    s.push('\n');
    s
}
