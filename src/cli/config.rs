//! Every configuration key the programs read, in one place, with its default
//! and the text the man pages print under CONFIGURATION. Keys are named
//! `section.camelCase` as git's own guidelines ask; a command-line option
//! always beats the key.

/// Which program reads a key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Program {
    Ultraplan,
    Historian,
    Both,
}

/// A configuration key as documented.
#[derive(Clone, Copy, Debug)]
pub struct Key {
    pub name: &'static str,
    /// The subcommands that read it (`[]` means every command of the program).
    pub commands: &'static [&'static str],
    pub default: &'static str,
    pub doc: &'static str,
    pub program: Program,
}

pub const COLOR_UI: Key = Key {
    name: "color.ui",
    commands: &[],
    default: "auto",
    doc: "Git's color switch: always, never, auto (true means auto). Used when no program-specific key is set.",
    program: Program::Both,
};

pub const COLOR_ULTRAPLAN: Key = Key {
    name: "color.ultraplan",
    commands: &[],
    default: "(color.ui)",
    doc: "Color for git-ultraplan's output: always, never or auto. Beats color.ui; --color beats both.",
    program: Program::Ultraplan,
};

pub const COLOR_HISTORIAN: Key = Key {
    name: "color.historian",
    commands: &[],
    default: "(color.ui)",
    doc: "Color for git-historian's output: always, never or auto. Beats color.ui; --color beats both.",
    program: Program::Historian,
};

/// Every key, in the order the man pages list them.
pub const ALL: &[Key] = &[COLOR_UI, COLOR_ULTRAPLAN, COLOR_HISTORIAN];

/// The keys `program` reads; with `command`, only those that command reads.
pub fn keys_for(program: Program, command: Option<&str>) -> impl Iterator<Item = &'static Key> + '_ {
    ALL.iter()
        .filter(move |k| k.program == program || k.program == Program::Both)
        .filter(move |k| match command {
            None => true,
            Some(c) => k.commands.is_empty() || k.commands.contains(&c),
        })
}
