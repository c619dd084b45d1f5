//! The cases' inputs as the harness reads them.

use crate::corpus::{Case, Corpus};
use crate::value::marshal;

/// The cases' inputs as the harness reads them, split by visibility: the
/// visible cases' inputs go to every worker at start; the hidden cases'
/// inputs only to a submission's supervisor once all its visible cases are
/// answered (see `worker::Worker::record`), so no visible result can carry a
/// hidden input. The harness runs the visible cases first, then the hidden
/// ones, each in corpus order with the cases of one process group
/// ([`crate::corpus::process_group`]) together: `order[k]` is the corpus
/// index of the k-th, and `group[k]` its group.
///
/// Each case's input is [`case_tuple`]'s; a list of them is what the
/// harness calls them from.
pub(crate) struct Inputs {
    /// The visible cases' inputs (their list's marshal bytes), as the init
    /// line brings them.
    pub visible: Vec<u8>,
    /// Each case's [`case_tuple`], in `order`'s order: the hidden cases' a
    /// job runs are joined from these when it asks for them.
    pub each: Vec<Vec<u8>>,
    /// How many cases are visible (the first `visible_count` of `order`).
    pub visible_count: usize,
    pub order: Vec<usize>,
    /// `position[i]`: where corpus case `i` stands in `order`.
    pub position: Vec<usize>,
    /// `group[k]`: the process group of the k-th case run (numbered from 0
    /// in `order`'s order; each group's cases are consecutive there).
    pub group: Vec<usize>,
}

impl Inputs {
    /// `corpus`'s inputs, split.
    pub(crate) fn of(corpus: &Corpus) -> Inputs {
        use crate::corpus::Visibility;
        use rayon::prelude::*;
        let (mut visible, mut hidden): (Vec<usize>, Vec<usize>) = (0..corpus.cases.len())
            .partition(|&i| corpus.cases[i].visibility == Visibility::Visible);
        // Each group's cases together (a stable sort: corpus order within
        // it), the groups in the order they first appear.
        let mut first_seen = std::collections::HashMap::new();
        for (i, case) in corpus.cases.iter().enumerate() {
            first_seen
                .entry(crate::corpus::process_group(case))
                .or_insert(i);
        }
        let first = |&i: &usize| first_seen[&crate::corpus::process_group(&corpus.cases[i])];
        visible.sort_by_key(first);
        hidden.sort_by_key(first);
        let order: Vec<usize> = visible.iter().chain(&hidden).copied().collect();
        let mut group = Vec::with_capacity(order.len());
        for (k, &i) in order.iter().enumerate() {
            let same = k > 0 && first(&order[k - 1]) == first(&i);
            group.push(match group.last() {
                Some(&g) if same => g,
                Some(&g) => g + 1,
                None => 0,
            });
        }
        let each: Vec<Vec<u8>> = order
            .par_iter()
            .map(|&i| case_tuple(&corpus.cases[i]))
            .collect();
        let mut position = vec![0; order.len()];
        for (k, &i) in order.iter().enumerate() {
            position[i] = k;
        }
        Inputs {
            visible: listed(each[..visible.len()].iter().map(Vec::as_slice)),
            each,
            visible_count: visible.len(),
            order,
            position,
            group,
        }
    }

    /// The hidden cases' inputs, all of them (`None`) or the `k`-th of
    /// them for each `k` given, as the line answering a job's request.
    pub(crate) fn hidden_line(&self, only: Option<&[usize]>) -> String {
        let hidden = &self.each[self.visible_count..];
        let line = match only {
            None => hex::encode(listed(hidden.iter().map(Vec::as_slice))),
            Some(ks) => hex::encode(listed(ks.iter().map(|&k| hidden[k].as_slice()))),
        };
        line + "\n"
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

/// The marshal bytes of the list of these cases' inputs (each a
/// [`case_tuple`]): what the harness reads.
pub(crate) fn listed<'a>(cases: impl ExactSizeIterator<Item = &'a [u8]>) -> Vec<u8> {
    let mut out = Vec::new();
    marshal::write_head(false, cases.len(), &mut out);
    for c in cases {
        out.extend_from_slice(c);
    }
    out
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
            out
        };
        let (visible, hidden) = inputs.order.split_at(inputs.visible_count);
        assert!(!visible.is_empty() && hidden.len() > 2);
        assert_eq!(inputs.visible, list(visible));
        assert_eq!(inputs.hidden_line(None), hex::encode(list(hidden)) + "\n");
        let some = [hidden[2], hidden[0]];
        assert_eq!(
            inputs.hidden_line(Some(&[2, 0])),
            hex::encode(list(&some)) + "\n"
        );
        for (k, &i) in inputs.order.iter().enumerate() {
            assert_eq!(inputs.position[i], k);
            assert_eq!(inputs.each[k], case_tuple(&corpus.cases[i]));
        }
    }
}
