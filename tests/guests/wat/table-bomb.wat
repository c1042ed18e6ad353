;; Grows a table by 65,536 elements at a time until the host refuses, then
;; claims a pass. The refusal must end the run as an error.
;;
;; Canonical ABI of the `plugin` world, written out by hand:
;; - describe() returns a pointer to four (pointer, length) strings;
;; - validate(criterion) takes the criterion flattened (id, params, targets:
;;   three pointer/length pairs) and returns a pointer to
;;   result<outcome, string>: tag byte at 0; outcome at 4 (status byte, then
;;   summary, findings and evidence as pointer/length pairs at 8, 16, 24).
(module
  (memory (export "memory") 17)
  (table $t 1 funcref)
  (global $heap (mut i32) (i32.const 65536))

  (data (i32.const 64) "table-bomb" "0.1.0" "grows a table" "{}")
  (data (i32.const 256)
    "\40\00\00\00" "\0a\00\00\00"
    "\4a\00\00\00" "\05\00\00\00"
    "\4f\00\00\00" "\0d\00\00\00"
    "\5c\00\00\00" "\02\00\00\00")
  (func (export "vcc:validator/validator@0.1.1#describe") (result i32)
    i32.const 256)

  (func (export "vcc:validator/validator@0.1.1#validate")
    (param i32 i32 i32 i32 i32 i32) (result i32)
    (loop $grow
      (br_if $grow
        (i32.ne (table.grow $t (ref.null func) (i32.const 65536)) (i32.const -1))))
    ;; ok(outcome { status: pass, summary: "", findings: [], evidence: [] })
    i32.const 512)

  ;; A bump allocator over the memory above 64 KiB; the host only lowers a
  ;; small criterion into it.
  (func (export "cabi_realloc") (param i32 i32 i32 i32) (result i32)
    (local $p i32)
    (local.set $p
      (i32.and
        (i32.add (global.get $heap) (i32.sub (local.get 2) (i32.const 1)))
        (i32.sub (i32.const 0) (local.get 2))))
    (global.set $heap (i32.add (local.get $p) (local.get 3)))
    (if (i32.gt_u (global.get $heap) (i32.const 1114112)) (then unreachable))
    (local.get $p))
)
