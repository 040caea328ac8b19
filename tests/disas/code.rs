//! `Module::code_text` read back into functions, blocks and instructions,
//! so that `properties.rs` can state what each golden case exists for
//! ("no compare", "this load is outside the loop") about the code the
//! compiler makes now, independently of the expected text.

/// One function of the text: its CLIF lines and its machine code, split
/// into the prologue (before `block0:`) and the blocks in layout order.
pub struct Function {
    pub name: String,
    pub clif: Vec<String>,
    pub prologue: Vec<String>,
    pub blocks: Vec<Vec<String>>,
}

pub fn parse(text: &str) -> Vec<Function> {
    let mut functions: Vec<Function> = Vec::new();
    let mut in_machine_code = false;
    for line in text.lines() {
        if let Some(header) = line.strip_prefix(";; function ") {
            // ";; function 3 $name", or without a name.
            let name = header.split_whitespace().nth(1).unwrap_or("").trim_start_matches('$').to_string();
            functions.push(Function { name, clif: Vec::new(), prologue: Vec::new(), blocks: Vec::new() });
            in_machine_code = false;
            continue;
        }
        let Some(f) = functions.last_mut() else { continue };
        if line == ";; machine code" {
            in_machine_code = true;
        } else if !in_machine_code {
            f.clif.push(line.trim().to_string());
        } else if line.starts_with("block") && line.ends_with(':') {
            f.blocks.push(Vec::new());
        } else if !line.trim().is_empty() {
            let inst = line.split_whitespace().collect::<Vec<_>>().join(" ");
            match f.blocks.last_mut() {
                Some(block) => block.push(inst),
                None => f.prologue.push(inst),
            }
        }
    }
    functions
}

pub fn function<'a>(code: &'a [Function], name: &str) -> &'a Function {
    code.iter().find(|f| f.name == name).unwrap_or_else(|| panic!("no function ${name} in the code"))
}

impl Function {
    /// Every instruction, prologue first.
    pub fn insts(&self) -> Vec<&str> {
        self.prologue.iter().chain(self.blocks.iter().flatten()).map(String::as_str).collect()
    }

    /// The instructions of the blocks (the body, without the prologue).
    pub fn body(&self) -> Vec<&str> {
        self.blocks.iter().flatten().map(String::as_str).collect()
    }

    /// The instructions of blocks inside a loop: every block from the
    /// target of a backward branch (`labelN` is `blockN`) to the block
    /// that branches back, in layout order.
    pub fn loop_insts(&self) -> Vec<&str> {
        let mut in_loop = vec![false; self.blocks.len()];
        for (from, block) in self.blocks.iter().enumerate() {
            for target in block.iter().flat_map(|i| branch_targets(i)) {
                if target <= from {
                    in_loop[target..=from].iter_mut().for_each(|b| *b = true);
                }
            }
        }
        self.blocks.iter().zip(in_loop).filter(|(_, l)| *l).flat_map(|(b, _)| b.iter().map(String::as_str)).collect()
    }

    /// The instructions of blocks in no loop.
    pub fn outside_loops(&self) -> Vec<&str> {
        let inside = self.loop_insts();
        let mut outside = self.insts();
        outside.retain(|i| !inside.iter().any(|j| std::ptr::eq(*i, *j)));
        outside
    }

    /// The stack-limit check of the prologue: its instructions up to the
    /// branch to the `stk_ovf` trap (empty if it has none).
    pub fn stack_check(&self) -> Vec<&str> {
        match self.prologue.iter().position(|i| i.contains("#trap=stk_ovf")) {
            Some(end) => self.prologue[..=end].iter().map(String::as_str).collect(),
            None => Vec::new(),
        }
    }
}

/// The blocks a branch instruction names (`jmp label1`, `jz label3; j label2`).
fn branch_targets(inst: &str) -> Vec<usize> {
    inst.split(|c: char| c.is_whitespace() || c == ';')
        .filter_map(|word| word.strip_prefix("label")?.parse().ok())
        .collect()
}

pub fn mnemonic(inst: &str) -> &str {
    inst.split_whitespace().next().unwrap_or("")
}

/// The operands, split at the commas outside parentheses.
pub fn operands(inst: &str) -> Vec<&str> {
    let rest = inst.split_once(' ').map_or("", |(_, r)| r);
    let mut out = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (at, c) in rest.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(rest[start..at].trim());
                start = at + 1;
            }
            _ => {}
        }
    }
    if !rest[start..].trim().is_empty() {
        out.push(rest[start..].trim());
    }
    out
}

fn is_memory(operand: &str) -> bool {
    operand.contains("(%")
}

/// Whether the instruction reads memory: a memory operand before the last
/// (AT&T order: the destination is last), or any memory operand of an
/// instruction that only reads its operands. `lea` computes an address
/// and reads nothing.
pub fn loads(inst: &str) -> bool {
    let m = mnemonic(inst);
    if m.starts_with("lea") {
        return false;
    }
    let ops = operands(inst);
    let read_only = m.starts_with("cmp") || m.starts_with("test");
    ops.iter().enumerate().any(|(k, op)| is_memory(op) && (k + 1 < ops.len() || read_only))
}

/// Whether the instruction writes memory (its last operand is memory).
pub fn stores(inst: &str) -> bool {
    let m = mnemonic(inst);
    !m.starts_with("lea")
        && !m.starts_with("cmp")
        && !m.starts_with("test")
        && operands(inst).last().is_some_and(|op| is_memory(op))
}

pub fn accesses_memory(inst: &str) -> bool {
    loads(inst) || stores(inst)
}

/// A register-to-register `mov` (a copy or, as `movl`, a zero-extension).
pub fn is_register_move(inst: &str) -> bool {
    let ops = operands(inst);
    mnemonic(inst).starts_with("mov") && ops.len() == 2 && ops.iter().all(|o| o.starts_with('%'))
}

pub fn is_compare(inst: &str) -> bool {
    let m = mnemonic(inst);
    m.starts_with("cmp") || m.starts_with("test")
}

pub fn is_call(inst: &str) -> bool {
    mnemonic(inst) == "call"
}

pub fn count(insts: &[&str], pred: impl Fn(&str) -> bool) -> usize {
    insts.iter().filter(|i| pred(i)).count()
}
