//! `synmem inspect`: a model's tensors, operators and activation lifetimes (tables or JSON);
//! a TFLM offline memory plan in the model is checked against TFLM's lifetimes, and a plan
//! that overlaps two tensors live together fails (exit 1) after the report.

use crate::common::{print_json, to_json_value, Failure};
use std::path::Path;
use synaptic_plan::render::{inspect_text, InspectReport};
use synaptic_plan::{read_file_limited, tflm, Model};

/// Runs `synmem inspect MODEL [--json]`, reading files of at most `max` bytes.
pub(crate) fn run(model: &Path, json: bool, max: u64) -> Result<u8, Failure> {
    let bytes = read_file_limited(model, max)?;
    let m = Model::from_file_limited(model, max)?;
    let offline = match tflm::read_offline_plan(&bytes)? {
        Some(p) => {
            let check = tflm::check_offline_plan(&m, &p.offsets)?;
            Some((p, check))
        }
        None => None,
    };
    if json {
        let mut v = to_json_value(&InspectReport::new(&m))?;
        if let (Some((p, check)), Some(obj)) = (&offline, v.as_object_mut()) {
            obj.insert(
                "offline_plan".into(),
                serde_json::json!({ "plan": p, "check": check }),
            );
        }
        print_json(&v)?;
    } else {
        print!("{}", inspect_text(&m));
        if let Some((p, check)) = &offline {
            print!("{}", tflm::check_text(p, check));
        }
    }
    match &offline {
        Some((_, check)) if !check.conflicts.is_empty() => Err(Failure(
            format!(
                "{}: the offline memory plan overlaps {} pair(s) of tensors that TFLM keeps live together{}",
                model.display(),
                check.conflicts.len(),
                if check.incomplete { " (search stopped early)" } else { "" }
            ),
            1,
        )),
        _ => Ok(0),
    }
}
