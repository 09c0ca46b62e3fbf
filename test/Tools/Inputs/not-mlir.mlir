// Not MLIR at all.

this is not { valid mlir
