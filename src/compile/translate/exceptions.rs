//! Exceptions: `throw`, `throw_ref`, `try_table` with its four kinds of
//! catch, and the legacy `try`/`catch`/`catch_all`/`delegate`/`rethrow`.
//!
//! Each `try_table` (or `try`) is a handler: a landing pad, where calls
//! in its body that throw arrive (their `try_call` edge), and a dispatch
//! block, where the pad and the body's own throws go with the exception.
//! The dispatch compares the exception's tag with each catch's in order
//! and branches to the first that matches, with the payload (and the
//! exception for the `_ref` kinds); when none does, it throws to the next
//! handler out: a jump when that is in this function, else the runtime's
//! `throw`, which finds it up the stack (see `vm::exception`). Nothing is
//! done on entry to a handler's body beyond one jump, so a call inside
//! costs what a call outside does.
//!
//! A `try_table`'s dispatch is built on entry, where its catch labels are
//! resolved. A legacy `try`'s catches follow its body, so its dispatch is
//! built at its `end` (or `delegate`); exceptions thrown in a catch
//! section go to the handler outside, and `rethrow` rethrows the one the
//! section caught.

use cranelift_codegen::ir::{Block, InstBuilder, Value};
use wasmparser::{BlockType, Catch, TryTable};

use super::Translator;
use crate::compile::func_env::POINTER;
use crate::compile::trap_codes::ToClif;
use crate::environ::index::TagIndex;
use crate::environ::trap::TrapCode;

/// A handler: a `try_table` or legacy `try` in this function.
pub(super) struct Handler {
    /// Index in the control stack of its construct.
    frame: usize,
    pad: Block,
    dispatch: Block,
    /// Whether it handles what is thrown now (a legacy `try`'s catch
    /// sections are outside its handler).
    active: bool,
    /// A legacy `try`'s catches, in order (`None` for `catch_all`), each
    /// a block taking the exception; and the exception the current catch
    /// section holds, for `rethrow`.
    legacy: Option<(Vec<(Option<TagIndex>, Block)>, Option<Value>)>,
}

impl Translator<'_, '_> {
    /// The dispatch block of the innermost active handler among the first
    /// `below` handlers.
    fn active_dispatch(&self, below: usize) -> Option<Block> {
        self.handlers[..below].iter().rev().find(|h| h.active).map(|h| h.dispatch)
    }

    /// Tells calls where to go when they throw.
    fn sync_handler(&mut self) {
        let pad = self.handlers.iter().rev().find(|h| h.active).map(|h| h.pad);
        self.env.set_handler(pad);
    }

    /// Throws `exn` to `dispatch` (a handler of this function) or, when
    /// `None`, out of this function. Code after it is unreachable.
    fn throw_to(&mut self, dispatch: Option<Block>, exn: Value) {
        match dispatch {
            Some(d) => {
                self.b.ins().jump(d, &[exn.into()]);
            }
            None => self.env.throw_to_caller(&mut self.b, exn),
        }
        self.reachable = false;
    }

    /// Throws `exn` from where the translation is.
    fn throw_here(&mut self, exn: Value) {
        let dispatch = self.active_dispatch(self.handlers.len());
        self.throw_to(dispatch, exn);
    }

    pub(super) fn throw(&mut self, tag: TagIndex) {
        let n = self.env.info().func_sig(self.env.info().tags[tag]).params().len();
        let values = self.popn(n);
        let exn = self.env.exn_new(&mut self.b, tag, &values);
        self.throw_here(exn);
    }

    pub(super) fn throw_ref(&mut self) {
        let exn = self.pop1();
        self.b.ins().trapz(exn, TrapCode::NullReference.to_clif());
        self.throw_here(exn);
    }

    /// Opens a handler for a construct of type `bt` about to be pushed:
    /// its pad and dispatch, and the body's block, which the translation
    /// continues in.
    fn open_handler(&mut self, bt: BlockType) -> (Block, Block) {
        let pad = self.b.create_block();
        let exn = self.b.append_block_param(pad, POINTER);
        let dispatch = self.b.create_block();
        self.b.append_block_param(dispatch, POINTER);
        let body = self.b.create_block();
        self.b.ins().jump(body, &[]);
        self.b.switch_to_block(pad);
        self.b.ins().jump(dispatch, &[exn.into()]);
        self.b.switch_to_block(body);
        self.b.seal_block(body);
        self.block(bt);
        (pad, dispatch)
    }

    pub(super) fn try_table(&mut self, table: TryTable) {
        let outer = self.active_dispatch(self.handlers.len());
        let (pad, dispatch) = self.open_handler(table.ty);
        let body = self.b.current_block().expect("in the body");
        // The catch labels are relative to the construct's outside: the
        // frame just pushed is skipped.
        self.b.switch_to_block(dispatch);
        let exn = self.b.block_params(dispatch)[0];
        let mut caught_all = false;
        for catch in &table.catches {
            let (tag, label, with_exn) = match *catch {
                Catch::One { tag, label } => (Some(tag), label, false),
                Catch::OneRef { tag, label } => (Some(tag), label, true),
                Catch::All { label } => (None, label, false),
                Catch::AllRef { label } => (None, label, true),
            };
            let mut args = Vec::new();
            match tag {
                Some(tag) => {
                    let tag = TagIndex::from_u32(tag);
                    let matched = self.env.exn_is(&mut self.b, exn, tag);
                    let (yes, no) = (self.b.create_block(), self.b.create_block());
                    self.b.ins().brif(matched, yes, &[], no, &[]);
                    self.b.seal_block(yes);
                    self.b.seal_block(no);
                    self.b.switch_to_block(yes);
                    let tys = self.env.info().func_sig(self.env.info().tags[tag]).params().to_vec();
                    args = self.env.exn_values(&mut self.b, exn, &tys);
                    self.deliver(exn, with_exn, &mut args);
                    self.jump_to_label(label + 1, &args);
                    self.b.switch_to_block(no);
                }
                None => {
                    self.deliver(exn, with_exn, &mut args);
                    self.jump_to_label(label + 1, &args);
                    caught_all = true;
                    break;
                }
            }
        }
        if !caught_all {
            match outer {
                Some(d) => {
                    self.b.ins().jump(d, &[exn.into()]);
                }
                None => self.env.throw_to_caller(&mut self.b, exn),
            }
        }
        self.b.switch_to_block(body);
        self.push_handler(pad, dispatch, None);
    }

    /// A catch hands `exn` on as an `exnref` (`with_exn`: exposed from now
    /// on), or drops it, freeing it unless something else may refer to it.
    fn deliver(&mut self, exn: Value, with_exn: bool, args: &mut Vec<Value>) {
        if with_exn {
            self.env.exn_expose(&mut self.b, exn);
            args.push(exn);
        } else {
            self.env.exn_release(&mut self.b, exn);
        }
    }

    fn push_handler(
        &mut self,
        pad: Block,
        dispatch: Block,
        legacy: Option<(Vec<(Option<TagIndex>, Block)>, Option<Value>)>,
    ) {
        self.handlers.push(Handler { frame: self.control.len() - 1, pad, dispatch, active: true, legacy });
        self.sync_handler();
    }

    /// `try`: a legacy handler, whose catches come later.
    pub(super) fn try_(&mut self, bt: BlockType) {
        let (pad, dispatch) = self.open_handler(bt);
        self.push_handler(pad, dispatch, Some((Vec::new(), None)));
    }

    /// The legacy handler of the innermost construct, if it is a `try`.
    fn innermost_legacy(&mut self) -> Option<&mut Handler> {
        let frame = self.control.len().checked_sub(1)?;
        self.handlers.last_mut().filter(|h| h.frame == frame && h.legacy.is_some())
    }

    /// `catch` (with a tag) or `catch_all`: ends the body or the previous
    /// catch section and starts one that the handler's dispatch reaches.
    pub(super) fn catch(&mut self, tag: Option<TagIndex>) {
        self.leave_section();
        let block = self.b.create_block();
        let exn = self.b.append_block_param(block, POINTER);
        let h = self.innermost_legacy().expect("validated: catch in a try");
        h.active = false;
        let (catches, caught) = h.legacy.as_mut().expect("a legacy handler");
        catches.push((tag, block));
        *caught = Some(exn);
        self.sync_handler();
        self.b.switch_to_block(block);
        // `rethrow` may throw it again from anywhere in the section.
        self.env.exn_expose(&mut self.b, exn);
        if let Some(tag) = tag {
            let tys = self.env.info().func_sig(self.env.info().tags[tag]).params().to_vec();
            let values = self.env.exn_values(&mut self.b, exn, &tys);
            self.stack.extend(values);
        }
        self.reachable = true;
    }

    /// `rethrow`: throws again what the catch section `depth` out caught.
    pub(super) fn rethrow(&mut self, depth: u32) {
        let frame = self.control.len() - 1 - depth as usize;
        let exn = self
            .handlers
            .iter()
            .rev()
            .find(|h| h.frame == frame)
            .and_then(|h| h.legacy.as_ref()?.1)
            .expect("validated: rethrow in a catch");
        self.throw_here(exn);
    }

    /// `delegate`: ends a `try` without catches, whose exceptions go to the
    /// handler around label `depth` (of the outside), or out of the function.
    pub(super) fn delegate(&mut self, depth: u32) {
        self.leave_section();
        let h = self.handlers.pop().expect("validated: delegate ends a try");
        let target = (h.frame as isize - 1 - depth as isize).max(0) as usize;
        let to = self.handlers.iter().rev().find(|o| o.active && o.frame <= target).map(|o| o.dispatch);
        self.sync_handler();
        self.b.switch_to_block(h.dispatch);
        let exn = self.b.block_params(h.dispatch)[0];
        self.throw_to(to, exn);
        self.seal_handler(&h);
        self.end();
    }

    /// Before the innermost construct's `end`: a legacy `try` gets its
    /// dispatch now that its catches are known. Returns the handler the
    /// construct had, to seal after it ends.
    pub(super) fn end_handler(&mut self) -> Option<Handler> {
        let frame = self.control.len().checked_sub(1)?;
        if self.handlers.last().is_none_or(|h| h.frame != frame) {
            return None;
        }
        let h = self.handlers.pop().expect("checked");
        self.sync_handler();
        if let Some((catches, _)) = &h.legacy {
            self.leave_section();
            self.b.switch_to_block(h.dispatch);
            let exn = self.b.block_params(h.dispatch)[0];
            let mut caught_all = false;
            for (tag, block) in catches {
                match tag {
                    Some(tag) => {
                        let matched = self.env.exn_is(&mut self.b, exn, *tag);
                        let no = self.b.create_block();
                        self.b.ins().brif(matched, *block, &[exn.into()], no, &[]);
                        self.b.seal_block(no);
                        self.b.switch_to_block(no);
                    }
                    None => {
                        self.b.ins().jump(*block, &[exn.into()]);
                        caught_all = true;
                        break;
                    }
                }
            }
            if !caught_all {
                let outer = self.active_dispatch(self.handlers.len());
                self.throw_to(outer, exn);
            }
            for (_, block) in catches {
                self.b.seal_block(*block);
            }
        }
        Some(h)
    }

    /// After its construct ended: every edge into the handler is known.
    pub(super) fn seal_handler(&mut self, h: &Handler) {
        self.b.seal_block(h.pad);
        self.b.seal_block(h.dispatch);
    }

    /// Whether the innermost construct is a legacy `try` (for `catch` in
    /// unreachable code, which makes code reachable again).
    pub(super) fn in_legacy_try(&mut self) -> bool {
        self.innermost_legacy().is_some()
    }
}
