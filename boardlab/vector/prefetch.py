"""A cache prefetch hint for the compiled loops (LLVM's ``llvm.prefetch``)."""
from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def prefetch(typingctx, arr, index):
    """Hint that ``arr[index]`` (a 1-d array) is about to be written: its cache line
    is fetched ahead (no effect on the values; an index out of range is harmless)."""
    sig = types.void(arr, index)

    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]],
                                       wraparound=False)
        i8p = builder.bitcast(ptr, ir.IntType(8).as_pointer())
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p.type, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        builder.call(fn, [i8p, i32(1), i32(3), i32(1)])
        return context.get_dummy_value()

    return sig, codegen
