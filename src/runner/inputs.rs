//! The cases' inputs as the harness reads them.

use crate::corpus::{Case, Corpus};
use crate::value::marshal;

/// The cases' inputs as the harness reads them, split by visibility: the
/// visible cases' inputs go to every worker at start; the hidden cases'
/// inputs only to a submission's supervisor once all its visible cases are
/// answered (see `worker::Worker::record`), so no visible result can carry a
/// hidden input. The harness runs the visible cases first, then the hidden
/// ones, each in corpus order: `order[k]` is the corpus index of the k-th.
///
/// Each case's input is [`case_tuple`]'s; a list of them is what the
/// harness calls them from, as the hex of its marshal bytes.
pub(crate) struct Inputs {
    /// The visible cases' inputs, as the init line carries them.
    pub visible: String,
    /// Every hidden case's, as the line answering a job's request for them.
    pub hidden: String,
    /// Each hidden case's [`case_tuple`], in `order`'s order: a subset's
    /// hidden inputs are joined from these.
    pub hidden_each: Vec<Vec<u8>>,
    /// How many cases are visible (the first `visible_count` of `order`).
    pub visible_count: usize,
    pub order: Vec<usize>,
    /// `position[i]`: where corpus case `i` stands in `order`.
    pub position: Vec<usize>,
}

impl Inputs {
    /// `corpus`'s inputs, split.
    pub(crate) fn of(corpus: &Corpus) -> Inputs {
        use crate::corpus::Visibility;
        use rayon::prelude::*;
        let (visible, hidden): (Vec<usize>, Vec<usize>) = (0..corpus.cases.len())
            .partition(|&i| corpus.cases[i].visibility == Visibility::Visible);
        let each: Vec<Vec<u8>> = corpus.cases.par_iter().map(case_tuple).collect();
        let hidden_each: Vec<Vec<u8>> = hidden.iter().map(|&i| each[i].clone()).collect();
        let order: Vec<usize> = visible.iter().chain(&hidden).copied().collect();
        let mut position = vec![0; order.len()];
        for (k, &i) in order.iter().enumerate() {
            position[i] = k;
        }
        Inputs {
            visible: listed(visible.iter().map(|&i| each[i].as_slice())),
            hidden: listed(hidden_each.iter().map(Vec::as_slice)),
            hidden_each,
            visible_count: visible.len(),
            order,
            position,
        }
    }
}

/// One case's input as the harness calls it: the marshal bytes of the
/// tuple (function name, marshal bytes of (args list, kwargs dict)). Each
/// call gets fresh arguments from the inner bytes (`marshal.loads`), which
/// are exactly what CPython dumps for them, so that dumping them again
/// after the call tells whether it changed them.
pub(crate) fn case_tuple(c: &Case) -> Vec<u8> {
    const CALLED_WITH: &str = "the corpus refuses matchers in calls and reads no opaque value";
    let mut call = Vec::new();
    marshal::write_head(true, 2, &mut call);
    marshal::write_head(false, c.args.len(), &mut call);
    for a in &c.args {
        marshal::write(a, &mut call).expect(CALLED_WITH);
    }
    call.push(b'{');
    for (k, v) in &c.kwargs {
        marshal::write_text(k, &mut call);
        marshal::write(v, &mut call).expect(CALLED_WITH);
    }
    call.push(b'0');
    let mut out = Vec::with_capacity(call.len() + c.checkpoint.len() + 16);
    marshal::write_head(true, 2, &mut out);
    marshal::write_text(&c.checkpoint, &mut out);
    marshal::write_bytes(&call, &mut out);
    out
}

/// The hex of the marshal bytes of the list of these cases' inputs (each
/// a [`case_tuple`]): what the harness reads.
pub(crate) fn listed<'a>(cases: impl ExactSizeIterator<Item = &'a [u8]>) -> String {
    let mut out = Vec::new();
    marshal::write_head(false, cases.len(), &mut out);
    for c in cases {
        out.extend_from_slice(c);
    }
    hex::encode(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_visible_and_hidden_inputs_are_each_cases_tuple_in_one_list() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("cases");
        let corpus = crate::corpus::load(&dir).expect("the shipped corpus loads");
        let inputs = Inputs::of(&corpus);
        let list = |which: &[usize]| {
            let mut out = vec![b'['];
            out.extend_from_slice(&(which.len() as i32).to_le_bytes());
            for &i in which {
                out.extend(case_tuple(&corpus.cases[i]));
            }
            hex::encode(out)
        };
        let (visible, hidden) = inputs.order.split_at(inputs.visible_count);
        assert!(!visible.is_empty() && !hidden.is_empty());
        assert_eq!(inputs.visible, list(visible));
        assert_eq!(inputs.hidden, list(hidden));
        let each: Vec<Vec<u8>> = hidden
            .iter()
            .map(|&i| case_tuple(&corpus.cases[i]))
            .collect();
        assert_eq!(inputs.hidden_each, each);
        for (k, &i) in inputs.order.iter().enumerate() {
            assert_eq!(inputs.position[i], k);
        }
    }
}
