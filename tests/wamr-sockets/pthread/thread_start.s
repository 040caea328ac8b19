# wasi_thread_start(tid, start_arg): what `wasi.thread-spawn` runs in a new
# instance. C cannot set wasm globals, so this sets the two the thread needs
# before any C code runs: __stack_pointer (the shadow stack pthread_create
# allocated: the first field of its record) and cw_self (the record, which
# is this thread's identity; the main thread's stays 0), then calls C.

	.globaltype	__stack_pointer, i32
	.globaltype	cw_self, i32
cw_self:

	.functype	cw_thread_main (i32, i32) -> ()

	.text
	.globl	wasi_thread_start
	.export_name	wasi_thread_start, wasi_thread_start
	.type	wasi_thread_start,@function
wasi_thread_start:
	.functype	wasi_thread_start (i32, i32) -> ()
	local.get	1
	i32.load	0
	global.set	__stack_pointer
	local.get	1
	global.set	cw_self
	local.get	0
	local.get	1
	call	cw_thread_main
	end_function

	.globl	cw_self_get
	.type	cw_self_get,@function
cw_self_get:
	.functype	cw_self_get () -> (i32)
	global.get	cw_self
	end_function
