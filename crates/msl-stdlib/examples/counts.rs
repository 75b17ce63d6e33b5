//! Prints how many names each spec chapter defines and how many entries of each kind the
//! library holds: `cargo run -p msl-stdlib --example counts`.
use std::collections::BTreeMap;

use msl_stdlib::*;

fn main() {
    let mut per_chapter: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for s in CHECKLIST {
        let chapter = s.section.split('.').next().unwrap_or("?").to_string();
        let e = per_chapter.entry(chapter).or_default();
        e.0 += 1;
        e.1 += s.names.len();
    }
    for (ch, (sections, names)) in &per_chapter {
        println!("chapter {ch}: {sections} sections, {names} names");
    }
    let overloads: usize = FUNCTIONS.iter().map(|f| f.overloads.len()).sum::<usize>()
        + METHODS.iter().map(|m| m.overloads.len()).sum::<usize>();
    println!(
        "entries: {} functions, {} types, {} member-function sets, {} data members, {} attributes, {} enums ({} enumerators), {} constants, {} keywords; {} signatures",
        FUNCTIONS.len(),
        TYPES.len(),
        METHODS.len(),
        MEMBERS.len(),
        ATTRIBUTES.len(),
        ENUMS.len(),
        ENUMS.iter().map(|e| e.members.len()).sum::<usize>(),
        CONSTANTS.len(),
        KEYWORDS.len(),
        overloads
    );
}
