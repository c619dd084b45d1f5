//! Which cases one submission runs, in the harness's order, and in which
//! processes.

use super::inputs::Inputs;
use super::SetupError;

/// Which cases one submission runs, in the harness's order.
pub(super) struct Plan {
    /// The corpus indices, in the order the harness runs them.
    pub order: Vec<usize>,
    /// For a subset: the positions of its visible cases among the visible
    /// inputs, and of its hidden cases among the hidden inputs.
    pub subset: Option<(Vec<usize>, Vec<usize>)>,
    /// How many of `order`'s cases each process runs, in order: one process
    /// per process group ([`crate::corpus::process_group`]).
    pub groups: Vec<usize>,
}

impl Plan {
    /// Every case (`only` is `None`), or the cases `only` names. A store
    /// lacks whole process groups only (its keys are the groups', see
    /// [`crate::recording::case_store::keys_of`]), so `only` names whole
    /// groups, and each runs as it would among every case.
    pub fn new(inputs: &Inputs, only: Option<&[usize]>) -> Result<Plan, SetupError> {
        let Some(only) = only else {
            return Ok(Plan {
                order: inputs.order.clone(),
                subset: None,
                groups: sizes(&inputs.group),
            });
        };
        let total = inputs.order.len();
        let mut positions = Vec::with_capacity(only.len());
        for &i in only {
            match inputs.position.get(i) {
                Some(&k) => positions.push(k),
                None => return Err(SetupError::CaseOutOfRange { index: i, total }),
            }
        }
        positions.sort_unstable();
        positions.dedup();
        let split = positions.partition_point(|&k| k < inputs.visible_count);
        let hidden = positions[split..]
            .iter()
            .map(|&k| k - inputs.visible_count)
            .collect();
        let groups: Vec<usize> = positions.iter().map(|&k| inputs.group[k]).collect();
        Ok(Plan {
            order: positions.iter().map(|&k| inputs.order[k]).collect(),
            subset: Some((positions[..split].to_vec(), hidden)),
            groups: sizes(&groups),
        })
    }
}

/// The lengths of the runs of equal group numbers in `group`.
fn sizes(group: &[usize]) -> Vec<usize> {
    group.chunk_by(|a, b| a == b).map(<[usize]>::len).collect()
}
