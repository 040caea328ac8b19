//! What each golden case exists for, asserted on the code the compiler
//! makes now: the expected text pins every instruction, but a blessed
//! regression would pass it; these checks say which instructions matter and
//! fail whatever the expected file says. Every `.wat` in `tests/disas/`
//! needs an entry in `check` (a case without one fails).

use crate::code::*;

/// Checks case `name`'s property on its code; the error says what broke.
pub fn check(name: &str, code: &[Function]) -> Result<(), String> {
    let f = |n: &str| function(code, n);
    match name {
        "load_guard_pages" => {
            for func in [f("load"), f("store")] {
                let insts = func.insts();
                ensure(count(&insts, is_compare) == 0, "no compare: the guard pages are the bounds check", &insts)?;
                ensure(!insts.iter().any(|i| i.contains("#trap")), "no trap branch", &insts)?;
                ensure(
                    count(&insts, accesses_memory) == 2,
                    "the memory base load and the access, nothing more",
                    &insts,
                )?;
            }
            Ok(())
        }
        "load_explicit_bounds" => {
            let insts = f("load").insts();
            let cmp = position(&insts, |i| is_compare(i) && loads(i), "a compare with the memory's length")?;
            let trap = position(&insts, |i| i.contains("#trap=heap_oob"), "a branch to the out-of-bounds trap")?;
            let access = insts.iter().rposition(|i| loads(i)).unwrap();
            ensure(cmp < trap && trap < access, "the check comes before the access", &insts)
        }
        "memory_base_hoisted" => {
            let func = f("sum");
            let (inside, outside) = (func.loop_insts(), func.outside_loops());
            ensure(!inside.is_empty(), "a loop", &func.insts())?;
            ensure(
                count(&outside, |i| i.starts_with("movq 0x28(%rdi)")) == 1,
                "the base loaded outside the loop",
                &outside,
            )?;
            ensure(count(&inside, loads) == 1, "one load in the loop: the byte, not the base", &inside)
        }
        "stack_limit" => {
            let check = f("fib").stack_check();
            ensure(count(&check, loads) == 1, "one load in the stack check", &check)?;
            ensure(count(&check, is_compare) == 1, "one compare in the stack check", &check)
        }
        "alias_regions" => {
            let insts = f("f").insts();
            ensure(count(&insts, stores) == 3, "three stores to linear memory", &insts)?;
            ensure(count(&insts, loads) == 2, "the global loaded once (and the memory base once)", &insts)
        }
        "address_step_unrolled" => {
            let body = f("pairs").loop_insts();
            ensure(
                count(&body, |i| accesses_memory(i) && i.contains(" 8(%")) == 2,
                "c + 8 in the accesses' offset",
                &body,
            )?;
            ensure(
                count(&body, |i| mnemonic(i) == "leal" || mnemonic(i) == "addl" && i.contains("$0x")) == 0,
                "no 32-bit address add",
                &body,
            )?;
            ensure(
                body.iter().any(|i| i.starts_with("leaq 0x10(") || i.starts_with("addq $0x10")),
                "a 64-bit step",
                &body,
            )
        }
        "address_step_imported" => {
            let body = f("pairs").loop_insts();
            ensure(body.iter().any(|i| i.starts_with("leal 8(")), "c + 8 stays a 32-bit add", &body)?;
            ensure(
                count(&body, |i| accesses_memory(i) && i.contains(" 8(%")) == 0,
                "no offset folded into an access",
                &body,
            )
        }
        "f64_axpy_loop" => {
            let body = f("axpy").loop_insts();
            ensure(
                count(&body, |i| is_register_move(i) && mnemonic(i) == "movl") == 0,
                "no zero-extension in the loop",
                &body,
            )?;
            ensure(
                count(&body, |i| i.starts_with("leaq 8(") || i.starts_with("addq $0x8")) == 2,
                "both addresses stepped in 64 bits",
                &body,
            )
        }
        "br_table" => {
            let insts = f("dispatch").insts();
            ensure(count(&insts, |i| mnemonic(i) == "br_table") == 1, "one jump table", &insts)?;
            ensure(
                count(&insts, |i| mnemonic(i).starts_with('j') && mnemonic(i) != "jmp") == 0,
                "no compare-and-branch chain",
                &insts,
            )
        }
        "call_indirect" => {
            let body = f("f").body();
            ensure(
                count(&body, |i| i.starts_with("cmpq $sigid")) == 1,
                "the signature compared with an immediate",
                &body,
            )?;
            ensure(
                count(&body, |i| is_compare(i) && loads(i)) == 1,
                "the index compared with the table's current length",
                &body,
            )?;
            ensure(
                !body.iter().any(|i| i.contains("#trap=user4")),
                "no explicit null test: the signature load faults",
                &body,
            )
        }
        "call_indirect_explicit" => {
            let body = f("f").body();
            let test = position(&body, |i| i.contains("jz #trap=user4"), "an explicit null test")? - 1;
            let reg = operands(body[test]).first().copied().unwrap_or("");
            ensure(mnemonic(body[test]).starts_with("test"), "a test before the null trap", &body)?;
            let written = body[..test].iter().rposition(|i| operands(i).last() == Some(&reg)).unwrap_or(0);
            let through = format!("({reg}");
            ensure(
                !body[written + 1..test].iter().any(|i| i.contains(&through)),
                "no load through the funcref above its test",
                &body,
            )?;
            ensure(body[test..].iter().any(|i| i.contains(&through)), "the funcref read after the test", &body)
        }
        "call_indirect_fixed_table" => {
            let func = f("f");
            let body = func.loop_insts();
            ensure(
                count(&func.insts(), |i| is_compare(i) && loads(i)) == 0,
                "no length loaded for the bounds check",
                &func.insts(),
            )?;
            ensure(
                count(&body, loads) == 4,
                "in the loop only the element, signature, code and context loads (the base is outside)",
                &body,
            )
        }
        "call_indirect_frozen_table" => {
            let body = f("loop").loop_insts();
            ensure(count(&body, loads) == 1, "one load per call in the loop: the code address", &body)?;
            ensure(
                !body.iter().any(|i| i.contains("$sigid")),
                "no signature check for a frozen table's own type",
                &body,
            )?;
            let holes = f("with_holes").body();
            ensure(
                !holes.iter().any(|i| i.contains("$sigid") || i.contains("#trap=user4")),
                "a table with holes needs no null or signature check",
                &holes,
            )?;
            let other = f("other_type").body();
            ensure(
                count(&other, |i| i.starts_with("cmpq $sigid")) == 1,
                "another type keeps its signature check",
                &other,
            )
        }
        "direct_call" => {
            let body = f("caller").body();
            ensure(count(&body, |i| i.starts_with("call User(")) == 1, "one direct call", &body)?;
            ensure(count(&body, loads) == 0, "no load of a function pointer", &body)
        }
        "imported_call" => {
            let body = f("caller").body();
            ensure(
                count(&body, |i| i.starts_with("call *%")) == 1,
                "one indirect call through the import's funcref",
                &body,
            )?;
            ensure(count(&body, loads) == 3, "the funcref's address, its code and its context: three loads", &body)
        }
        "globals" => {
            let insts = f("bump").insts();
            ensure(
                count(&insts, loads) == 1 && count(&insts, stores) == 1,
                "one load and one store of the global",
                &insts,
            )?;
            ensure(
                insts.iter().filter(|i| accesses_memory(i)).all(|i| i.contains("(%rdi)")),
                "both at an offset of the VMContext",
                &insts,
            )
        }
        "heap_index_small" => {
            for name in ["masked", "byte_indexed", "halfword_indexed", "shifted_right", "crc_step"] {
                let insts = f(name).insts();
                ensure(
                    count(&insts, |i| mnemonic(i).starts_with("shl")) == 0,
                    "the shift folded into the address",
                    &insts,
                )?;
                let scaled = |i: &str| accesses_memory(i) && [", 2)", ", 4)", ", 8)"].iter().any(|s| i.contains(s));
                ensure(count(&insts, scaled) == 1, "one scaled access", &insts)?;
            }
            let insts = f("unbounded").insts();
            ensure(count(&insts, |i| mnemonic(i) == "shll") == 1, "an unbounded index keeps its 32-bit shift", &insts)
        }
        "inline_callee" => {
            let insts = f("caller").insts();
            ensure(count(&insts, is_call) == 0, "no call left", &insts)?;
            ensure(f("caller").stack_check().is_empty(), "no stack check (a leaf now)", &insts)?;
            ensure(count(&insts, |i| i.contains("#trap=int_divz")) == 1, "the callee's trap kept", &insts)
        }
        "inline_in_try_table" => {
            let insts = f("caller").insts();
            let direct = |i: &str| is_call(i) && i.contains("User(");
            ensure(count(&insts, direct) == 0, "the callee inlined, no direct call left", &insts)?;
            // The inlined body's calls of the runtime (exn_new, throw) keep
            // the caller's handler; the dispatch's own (exn_release, the
            // throw to the caller when no tag matches) have none.
            let handled = |i: &str| is_call(i) && i.contains("catch [default");
            ensure(count(&insts, handled) == 2, "the inlined exn_new and throw with the handler", &insts)
        }
        "inline_self_recursion" => {
            let insts = f("fib").insts();
            ensure(count(&insts, is_call) == 2, "fib's two calls of itself, not unrolled", &insts)
        }
        "load_widened" => {
            let insts = f("deref").insts();
            let first_load = position(&insts, |i| loads(i) && !i.contains("(%rdi)"), "the load of the pointer")?;
            ensure(
                count(&insts[first_load..], |i| is_register_move(i) && mnemonic(i) == "movl") == 0,
                "the loaded pointer is not zero-extended again",
                &insts,
            )
        }
        "loop_exit_counter" => {
            let func = f("scan");
            let body = func.loop_insts();
            ensure(count(&body, is_register_move) == 0, "no copy on the back edge", &body)?;
            ensure(
                func.outside_loops().iter().any(|i| i.starts_with("subl $0x1")),
                "the old i recomputed after the loop",
                &func.insts(),
            )
        }
        "loop_stepped_compare" => {
            let body = f("sum").loop_insts();
            ensure(count(&body, is_register_move) == 0, "no copy on the back edge", &body)?;
            ensure(body.iter().any(|i| i.starts_with("cmpl $0x1000,")), "the stepped value compared with 4096", &body)
        }
        "memory_fill" => {
            // A copy has a second call: the short in-bounds copy's memmove,
            // before the general builtin, which traps.
            for (name, calls) in [("fill", 1), ("copy", 2)] {
                let body = f(name).body();
                position(&body, |i| i.starts_with("call *%"), "an indirect call of the builtin")?;
                ensure(count(&body, is_call) == calls, "the expected number of calls", &body)?;
                let traps_after = |at: usize| {
                    let next = body[at + 1..].iter().take_while(|i| !is_call(i) && !i.starts_with("jmp"));
                    next.into_iter().any(|i| i.contains("#trap=heap_oob"))
                };
                ensure(
                    (0..body.len()).any(|at| is_call(body[at]) && traps_after(at)),
                    "a builtin call whose failure is the bounds trap",
                    &body,
                )?;
            }
            Ok(())
        }
        "mul_consts" => {
            for name in ["times5", "node", "times31", "murmur_step"] {
                let insts = f(name).insts();
                ensure(count(&insts, |i| mnemonic(i).starts_with("imul")) == 0, "no imul for this constant", &insts)?;
            }
            let insts = f("times56").insts();
            ensure(count(&insts, |i| mnemonic(i).starts_with("imul")) == 1, "56 keeps its imul", &insts)?;
            let insts = f("murmur_step").insts();
            ensure(insts.iter().any(|i| i.starts_with("leaq") && i.contains(", 4)")), "* 5 + c as one lea", &insts)
        }
        "return_call" => {
            let insts = f("count").insts();
            ensure(count(&insts, |i| mnemonic(i).starts_with("return_call")) == 1, "one tail call", &insts)?;
            ensure(count(&insts, is_call) == 0, "no ordinary call", &insts)
        }
        "load64_bounded_index" => {
            for name in ["lookup", "static_array"] {
                let insts = f(name).insts();
                ensure(count(&insts, is_compare) == 0, "no compare", &insts)?;
                ensure(count(&insts, |i| mnemonic(i).starts_with("cmov")) == 0, "no conditional move", &insts)?;
            }
            Ok(())
        }
        "load64_loop_step" => {
            for name in ["mark", "axpy"] {
                let body = f(name).loop_insts();
                ensure(
                    count(&body, |i| mnemonic(i).starts_with("cmov")) == 0,
                    "no conditional move in the loop",
                    &body,
                )?;
                ensure(count(&body, |i| mnemonic(i) == "cmpq") == 0, "no 64-bit compare in the loop", &body)?;
                let masks = if name == "mark" { 1 } else { 2 };
                ensure(count(&body, |i| mnemonic(i) == "andq") == masks, "one mask per stepped address", &body)?;
            }
            Ok(())
        }
        "load64_one_compare" => {
            let insts = f("sum3").insts();
            ensure(count(&insts, is_compare) == 1, "one compare for the three accesses", &insts)?;
            ensure(!insts.iter().any(|i| i.contains("#trap")), "no trap branch", &insts)?;
            // The three selects are the same value: Cranelift merges them.
            ensure(count(&insts, |i| mnemonic(i).starts_with("cmov")) == 1, "one conditional move", &insts)?;
            // The bound is a constant (in the constant pool: 4 GiB does not
            // fit an immediate), not the memory's length.
            let from_memory = |i: &str| loads(i) && !i.contains("(%rip)");
            ensure(count(&insts, from_memory) == 4, "the base and the three accesses, no length", &insts)?;
            let insts = f("sum2_stepped").insts();
            ensure(count(&insts, is_compare) == 1, "one compare for p and p + 8", &insts)?;
            ensure(count(&insts, |i| mnemonic(i).starts_with("cmov")) == 1, "one conditional move", &insts)?;
            ensure(!insts.iter().any(|i| i.contains("#trap")), "no trap branch", &insts)
        }
        _ => Err(format!("no property for the case {name}: add one to tests/disas/properties.rs")),
    }
}

fn ensure(ok: bool, what: &str, insts: &[&str]) -> Result<(), String> {
    if ok {
        Ok(())
    } else {
        Err(format!("expected {what}, in:\n  {}", insts.join("\n  ")))
    }
}

fn position(insts: &[&str], pred: impl Fn(&str) -> bool, what: &str) -> Result<usize, String> {
    insts.iter().position(|i| pred(i)).ok_or_else(|| format!("expected {what}, in:\n  {}", insts.join("\n  ")))
}
