"""Every sentence autotrace's explanations and diagnostics print, as keyed templates.

Code never builds an English sentence itself: it calls :func:`text` with a key and the
values to fill in (``text("seed.scalar", root="x")``). A translation is another table
with the same keys (``EDITIONS["zh"]``, planned); :func:`text` falls back to English for
a key a translation lacks. Formulas (``∂x/∂A = 3·A²``) are not sentences and are built by
:mod:`autotrace.explain`.
"""

from __future__ import annotations

EN: dict[str, str] = {
    # -- headings and labels -------------------------------------------------------------
    "title": "Explanation of {script}",
    "heading.pass": "Backward pass {number} of {total}: line {line}: {statement}",
    "heading.pass_noline": "Backward pass {number} of {total}: {statement}",
    "heading.pass_implicit": "Backward pass {number} of {total}: {root}.backward() (from --of {root}; the script calls none)",
    "heading.pass_auto": "Backward pass {number} of {total}: {root}.backward() (run by explain; the script calls none)",
    "heading.pass_auto_stopped": "Backward pass {number} of {total}: {root}.backward() (run by explain on what ran before the stop)",
    "heading.chains": "The whole chain, leaf by leaf",
    "heading.timeline": "Each leaf's .grad over the run",
    "heading.diagnostics": "Diagnostics",
    "heading.verify": "Check by central differences (float64)",
    "heading.output": "What the script printed",
    "heading.result": "Gradients at the end of the script",
    "label.step": "Step {number}",
    "col.step": "step",
    "col.node": "node",
    "col.where": "line: expression",
    "col.local": "local derivative (g = upstream)",
    "col.upstream": "upstream",
    "col.passed": "passed on",
    "cell.summary": "{shape} ‖{norm}‖",
    "cell.see_step": "see step {number}",
    "cell.sum_back": "sum-back to {shape}",
    "cell.same_rules": "the same rules, {count} more times",
    "heading.table": "The pass at a glance (the steps are detailed below):",
    "label.expr": "forward",
    "label.node": "node",
    "label.rule": "local rule",
    "label.numbers": "with numbers",
    "label.upstream": "upstream",
    "label.to": "to {target}",
    "label.to_broadcast": "to {target}, still of shape {shape}",
    "label.fan_in": "fan-in",
    "label.grad": "{leaf}.grad",
    "label.why": "why",
    "label.fix": "fix",
    "label.line": "line {line}",
    "label.leaf": "leaf {name}",
    "label.none": "None",
    "label.constant": "an input",
    "label.seed": "the seed",
    "label.unnamed_leaf": "‹{node}›",
    "label.from": "{value} from {source}",
    "label.inputs_of": "{count} inputs of {stmt}",
    "label.both": "both",
    "label.all_n": "all {count}",
    "label.from_group": "{values} from {source}",
    "label.via": "(via {input})",
    "label.via_step": "{label} (step {step})",
    "label.seed_vector": "the gradient= vector {v}",
    "label.no_input": "does not require grad, so no gradient is computed for it",
    "label.no_input.frozen": "does not require grad (its parameters are frozen: every parameter of {module} has requires_grad=False), so no gradient is computed for it",
    "label.no_input.number": "a plain number (a constant), so no gradient is computed for it",
    "col.leaf": "leaf",
    "col.element": "element",
    "col.analytic": "autograd",
    "col.numeric": "numeric",
    "col.error": "abs. error",
    "col.pass": "pass",
    "col.before": "before",
    "col.increment": "increment",
    "col.after": "after",

    # -- the seed ------------------------------------------------------------------------
    "seed.scalar": "The pass starts at {root} with ∂{root}/∂{root} = 1: {root} is a single number, so its derivative with respect to itself is 1.",
    "seed.vector": (
        "The pass starts at {root} (shape {shape}) with the gradient= tensor {v} = {value}. A "
        "non-scalar output has a whole Jacobian matrix J = ∂{root}/∂(inputs); autograd never builds "
        "it. It computes the vector-Jacobian product {v}ᵀ·J, which is the gradient of the scalar "
        "({root} * {v}).sum(). With {v} all ones that is the gradient of {root}.sum()."),
    "seed.failed": "backward() was called on {root} (shape {shape}), and it failed before any gradient was computed.",
    "seed.grad_call": "torch.autograd.grad: the gradients are returned, not added to any .grad.",
    "seed.implicit_of": "The script calls no backward(): this pass is the one explain ran from {root} ({root}.backward(retain_graph=True), so the script's graph is left as it was).",
    "seed.implicit_auto": "explain ran it as {root}.backward(retain_graph=True), so the script's graph is left as it was.",
    "seed.retain": "retain_graph=True: the saved tensors stay, so the graph can be walked again.",
    "seed.freed": "retain_graph is not set, so each node frees its saved tensors after it runs.",

    # -- steps ---------------------------------------------------------------------------
    "step.fan_in_many": "the sum of the {count} contributions is {value}; the largest:",
    "step.fan_in": "{target} receives gradients from {count} paths; autograd adds them before using them:",
    "step.sum_back": "{target} was broadcast from shape {small} to {big} in the forward pass, so autograd sums the gradient over dimension(s) {dims} back to shape {small}: {sym} = {value}.",
    "label.sum_back": "sum-back",
    "ref.upstream": "upstream",
    "ref.local": "local",
    "ref.upstream_same": "the upstream gradient, unchanged",
    "ref.passed_in_step": "{value}, passed on in step {step}",
    "ref.step": "as passed on in step {step}",
    "step.broadcast": "{target} was broadcast from shape {small} to {big} in the forward pass, so its gradient is summed back over the broadcast dimensions: {value}.",
    "step.unnamed_leaf": "{leaf} is a leaf of shape {shape} that no script variable holds: it is used at line {line}, and the script kept only what was computed from it.",
    "step.accumulate_first": "{leaf}.grad was None, so it becomes a copy of the incoming gradient.",
    "step.accumulate_add": "{leaf}.grad already held a value; the incoming gradient is added to it (gradients accumulate).",
    "step.accumulate_captured": "torch.autograd.grad returns this gradient for {leaf}; {leaf}.grad is not touched.",
    "step.elementwise": "elementwise: each element of {target} gets upstream × local derivative.",
    "step.matrix": "matrix form: {rule}",
    "step.no_numbers": "values not kept (tensor too large); shape {shape}",
    "step.inner": "{label} is the result of {node}, one of the operations inside {expr}.",
    "step.same_input": "{target} is {count} inputs of {stmt}: each input gets its own gradient, and autograd adds them at {target} (fan-in).",
    "step.not_reached": "not computed: the pass stopped with an error here.",

    "rule.sum": "each element of {target} is added into {out} once, so ∂{out}/∂{target}ᵢ = 1: the upstream gradient is copied to every element (shape {shape}).",
    "rule.mean": "{out} is the mean of {n} elements, so ∂{out}/∂{target}ᵢ = 1/{n}: the upstream gradient is divided by {n} and copied to every element (shape {shape}).",
    "pass.same_as": "Same steps and the same numbers as pass {number}; only .grad changes:",

    # -- chains --------------------------------------------------------------------------
    "chain.paths": "{count} paths lead from {root} to {leaf}; the chain rule adds their products:",
    "chain.matches": "= {leaf}.grad increment of this pass",
    "chain.mismatch": "differs from the engine's increment {value}",
    "chain.flow": "gradient along the path: {flow}",
    "chain.at_leaf": "(the pass starts at the leaf itself)",
    "chain.elided": "… {count} more …",
    "chain.via": "via {via}",
    "chain.via_step": "{label} (step {step}, line {line})",
    "chain.via_step_noline": "{label} (step {step})",
    "chain.via_paths": "via {via} ({count} paths that join on the way; one of them)",
    "chain.paths_merge": "{count} paths lead from {root} to {leaf}; they join on the way (autograd adds them where they meet, see fan-in above), so one gradient arrives at {leaf}; one of the paths:",
    "chain.n_paths": "({count} paths)",
    "chain.summary": "{paths} paths lead from {root} to {leaf}, arriving along {count} edges; autograd adds the {count} contributions. The {largest} largest:",
    "chain.sum_of": "the sum of all {count}",
    "steps.run": "Steps {first}–{last} repeat the pattern {pattern} ({where}) {count} more times: the same rules with other numbers. The gradient arriving goes from {start} to {end}. Run with --all-steps to see every step.",
    "steps.run_noline": "Steps {first}–{last} repeat the pattern {pattern} {count} more times: the same rules with other numbers. The gradient arriving goes from {start} to {end}. Run with --all-steps to see every step.",

    # -- timeline ------------------------------------------------------------------------
    "timeline.reset": "between pass {before_pass} and pass {after_pass}, {leaf}.grad went from {old} to {new}: {how}.",
    "timeline.reset_to": "reset to {value}",
    "timeline.how.list": "the script reset it ({list})",
    "timeline.how.zero": "zeroed at line {line}",
    "timeline.how.none": "set to None at line {line}",
    "timeline.how.unknown": "the script changed it",

    # -- training loops ------------------------------------------------------------------
    "fold.dynamic": "Each of the {count} iterations builds a new graph of {nodes} nodes from line(s) {lines}, which backward() at line {line} walks and frees (define-by-run). Pass {first} is explained above; the others repeat its steps with these numbers (‖g‖/‖p‖: norms of each leaf's gradient and value; a plain number for one element). --pass N shows pass N.",
    "fold.heading": "Passes {first}–{last}: one graph structure, the numbers that change",
    "fold.col.pass": "pass",
    "fold.col.loss": "loss",
    "fold.elided": "{count} more (JSON has every row; --pass N explains pass N)",
    "fold.events": "Passes {first}–{last} repeat these events each iteration; the update rule is the same, with the numbers of the table below.",
    "fold.branch": "Pass {number} built another graph: that iteration took the {branch} branch at line {line}.",

    # -- the timeline of events ---------------------------------------------------------
    "heading.events": "Timeline: everything that changed a gradient or a parameter",
    "event.backward": "line {line}: backward pass {number} from {root} = {value} adds to the .grad of {leaves}",
    "event.backward_noline": "backward pass {number} from {root} = {value} adds to the .grad of {leaves}",
    "event.backward_failed": "line {line}: backward pass {number} failed: {error}",
    "event.no_leaf": "no leaf",
    "event.and_more": "and {count} more",
    "event.grad_reset.none": "line {line}: .grad set to None for {leaves} (the next backward starts from None)",
    "event.grad_reset.zero": "line {line}: .grad zeroed in place for {leaves}",
    "event.optimizer_step": "line {line}: {optimizer}.step() updates {count} parameter(s) in place, outside the graph",
    "rule.sgd.step": "rule: p ← p − lr·g, lr = {lr} (g = p.grad)",
    "rule.sgd.momentum": "rule: buf ← {momentum}·buf + {damp}·g (the first step: buf ← g)",
    "rule.sgd.step_buf": "then p ← p − lr·buf, lr = {lr}",
    "rule.sgd.wd": "weight decay: g ← g + {wd}·p",
    "rule.adamw.wd": "decoupled weight decay: p ← p·(1 − {lr}·{wd})",
    "rule.adam.m": "rule: m ← {b1}·m + (1 − {b1})·g   (first moment, a running mean of g)",
    "rule.adam.v": "      v ← {b2}·v + (1 − {b2})·g²  (second moment, a running mean of g²)",
    "rule.adam.step": "      p ← p − lr/(1 − β₁ᵗ) · m / (√v/√(1 − β₂ᵗ) + ε); step t = {t}: 1 − β₁ᵗ = {bc1}, 1 − β₂ᵗ = {bc2}, lr/(1 − β₁ᵗ) = {step}, ε = {eps}",
    "event.param_update": "{leaf}: g = {grad}; {before} → {after}",
    "event.adam_param": "{leaf}: g = {grad}, m = {m}, v = {v}; {before} → {after}",
    "event.buf": "buf = {value}",
    "event.norm": "norm {norm}",
    "event.clip_norm": "line {line}: clip_grad_norm_(max_norm={max_norm}): the total norm {total} is above {max_norm}, so every gradient is scaled by {scale}",
    "event.clip_norm_noop": "line {line}: clip_grad_norm_(max_norm={max_norm}): the total norm {total} is within it; the gradients are left as they are",
    "event.clip_rule": "scale = max_norm / (total norm + 1e-6) = {max_norm} / ({total} + 1e-6) = {scale}",
    "event.grad_change": "{leaf}.grad: {before} → {after}",
    "event.clip_value": "line {line}: clip_grad_value_({clip}): {count} of {total} gradient elements were outside ±{clip} and are clipped to it",
    "event.no_grad": "line {line}: with torch.{manager}(): what is computed inside records no graph",
    "event.no_grad_body": "computed without a graph: {lines}",
    "event.no_grad_why": "Tensors made there have requires_grad=False and no grad_fn: no backward pass reaches through them (in-place updates of parameters belong there).",
    "event.hook": "line {line}: a hook changed the gradient arriving at {node}: {before} → {after}",
    "event.warning": "line {line}: PyTorch warns: {category}: {message}",
    "diag.mse_broadcast.title": "Line {line}: mse_loss broadcasts input {input} against target {target}: the loss compares every prediction with every target.",
    "diag.mse_broadcast.why": "PyTorch warns (UserWarning: Using a target size that is different to the input size) and goes on: the two shapes broadcast to {big}, so the loss is the mean over all pairs of predictions and targets, not over matching ones, and the gradient trains the model towards the mean target. No error is raised: the classic silent bug.",
    "diag.mse_broadcast.fix": "Give both the same shape: target.view({input_shape}) (or target.unsqueeze(1)), or output.squeeze(1) to match the target.",
    "diag.warning.title": "Line {line}: {category}: {message}",
    "diag.warning.why": "PyTorch issued this warning here (the message is PyTorch's own); the script went on.",

    # -- diagnostics ---------------------------------------------------------------------
    "diag.none": "No problems found: every leaf that requires grad got its gradient, no nan or inf, no errors, no warnings.",
    "diag.accumulation.title": "{leaf}.grad accumulated over {count} backward passes without being zeroed (backward at line {line}): {sequence}.",
    "diag.accumulation.title_noline": "{leaf}.grad accumulated over {count} backward passes without being zeroed: {sequence}.",
    "diag.accumulation.why": (
        "backward() adds into .grad; it never overwrites it. Each pass computed the same "
        "increment {increment}, so {leaf}.grad grows by {increment} each time. In a training loop "
        "this makes every update use the sum of all past gradients."),
    "diag.accumulation.why_varied": (
        "backward() adds into .grad; it never overwrites it, so {leaf}.grad holds the sum of the "
        "gradients of all these passes. In a training loop this makes every update use the sum of "
        "all past gradients."),
    "diag.accumulation.fix": "Zero the gradient before each backward(): optimizer.zero_grad(), or {leaf}.grad = None, or {leaf}.grad.zero_().",
    "diag.nonleaf_grad.title": "Line {line} reads .grad of a tensor that is not a leaf; it is None.",
    "diag.nonleaf_grad.why": (
        "Only leaves (tensors you created with requires_grad=True) keep their gradient in .grad. "
        "For intermediate results autograd passes the gradient on and drops it, to save memory; "
        "PyTorch warns when you read it."),
    "diag.nonleaf_grad.fix": "Call .retain_grad() on the tensor before backward() if you want its .grad, or read .grad of the leaf you meant.",
    "diag.none_grad.title": "{leaf}.grad is None.",
    "diag.none_grad.no_requires_grad": (
        "{leaf} was created with requires_grad=False (the default), so autograd does not track "
        "it: no graph node leads to it and backward() never computes a gradient for it. This is "
        "what you want for inputs and targets."),
    "diag.none_grad.no_requires_grad.fix": "If you need ∂/∂{leaf}, create it with requires_grad=True (or call {leaf}.requires_grad_() before using it).",
    "diag.none_grad.unused": "{leaf} requires grad, but no backward pass reached it: {reason}",
    "diag.none_grad.reason.never_used": "no recorded operation used it.",
    "diag.none_grad.reason.off_path": "the tensors backward() was called on were not computed from it.",
    "diag.none_grad.reason.no_grad": "its use at line {line} was inside torch.no_grad(), which records no graph.",
    "diag.none_grad.reason.data": "at line {line} the script computes from {leaf}.data, a tensor that shares the values but is outside the graph, so the link to {leaf} is cut there.",
    "diag.none_grad.reason.detach": "at line {line} it goes through .detach(), which cuts the graph.",
    "diag.none_grad.reason.failed": "the backward call that would have reached it failed (see the error above).",
    "diag.none_grad.reason.failed_line": "the backward call at line {lines}, whose graph leads to it, failed (see the error above), so no gradient arrived.",
    "diag.none_grad.reason.failed_lines": "the backward calls at lines {lines}, whose graph leads to it, failed (see the errors above), so no gradient arrived.",
    "diag.none_grad.failed.fix": "Fix the error of that backward call (see its fix above); then the pass reaches {leaf} and fills {leaf}.grad.",
    "diag.none_grad.reason.no_pass": "the script never calls backward().",
    "diag.none_grad.reason.stopped": "the script stopped at line {line} before any backward() ran.",
    "diag.none_grad.unused.fix": "Compute the loss from {leaf} with grad mode on (outside torch.no_grad(), without .detach()), then call backward() on it.",
    "diag.none_grad.no_pass.fix": "Call backward() on the result (for example {root}.backward()), or run explain with --of NAME.",
    "diag.nonleaf_made.why": "{leaf} is not a leaf: it was computed by {node} at line {line} ({expr}), so its .grad stays None. The leaf is the tensor it was computed from.",
    "diag.nonleaf_made.fix": "Make the final tensor the leaf: create it with requires_grad=True after the conversion (e.g. torch.randn(3, dtype=torch.float64, requires_grad=True)), or read .grad of the original leaf.",
    "diag.nonleaf_made.fix_op": "Make {leaf} itself the leaf: do the {op} first and ask for gradients after it ({suggestion}), or read .grad of the tensor it was computed from.",
    "step.retained": "{name}.retain_grad() was called, so this gradient is kept: {name}.grad = {value}.",
    "diag.nan.title": "{kind} first appears at {node} (line {line}: {expr}) in backward pass {number}.",
    "diag.nan.why": "The upstream gradient was finite, but the local derivative {rule} is not finite at the values here ({detail}), so the gradient passed to {target} contains {kind}. Everything downstream inherits it.",
    "diag.nan.at": " at {where}",
    "diag.nan.why_masked": (
        "The upstream gradient{at} is 0: torch.where did not select this branch there, so it "
        "passes 0. But the local derivative {rule} is {local} at the values here ({detail}), "
        "and the chain rule multiplies them: {product}. So the gradient "
        "passed to {target} contains {kind}, although that element was never used. Everything "
        "downstream inherits it."),
    "diag.nan.why_zero": (
        "The upstream gradient{at} is 0, but the local derivative {rule} is {local} at the "
        "values here ({detail}), and the chain rule multiplies them: {product}. So the gradient passed to {target} contains {kind}. Everything downstream inherits it."),
    "diag.nan.fix.where_masked": (
        "Make the unselected branch safe before the op, so its derivative is finite everywhere: "
        "{fn}(torch.where({cond}, {arg}, torch.ones_like({arg}))) inside the torch.where, or clamp "
        "the input ({fn}({arg}.clamp_min(eps)))."),
    "diag.nan.more": "nan/inf also first appears at {count} more place(s); the first ones are above.",
    "diag.nan.why_forward": "The forward value {expr} is already {kind} at line {line}.",
    "diag.nan.fix.sqrt": "sqrt'(0) = 1/(2·√0) = inf. Keep the argument away from 0: torch.sqrt(x + eps) or torch.sqrt(x.clamp_min(eps)).",
    "diag.nan.fix.log": "log'(0) = 1/0 = inf. Use torch.log(x + eps) or torch.log(x.clamp_min(eps)).",
    "diag.nan.fix.div": "Division by 0 gives inf in the gradient. Add eps to the denominator.",
    "diag.nan.fix.where": "torch.where does not stop nan/inf from the branch it does not select (0 · inf = nan). Make the unselected branch safe before where, e.g. compute on torch.where(mask, x, 1.0).",
    "diag.nan.fix.generic": "Find the values where the local derivative blows up and keep the inputs away from them (clamp, add eps).",
    "diag.error.title": "Line {line}: {type}: {message}",
    "diag.error.title_noline": "{type}: {message}",
    "diag.error.caught": "The script caught this error with try/except and went on.",
    "diag.error.scalar.why": (
        "{root} has shape {shape}, not a single number. backward() starts from ∂{root}/∂{root}; for a "
        "scalar that is 1, but for a vector the starting gradient must have one entry per element "
        "and PyTorch will not guess it."),
    "diag.error.scalar.fix": (
        "Reduce to a scalar first ({root}.sum().backward(), as a loss does), or pass the starting "
        "gradient: {root}.backward(gradient=torch.ones_like({root})). That computes the "
        "vector-Jacobian product gradientᵀ·J."),
    "diag.error.twice.why": (
        "{node} ({expr}, line {node_line}) needs its saved tensor{saved} to compute its gradient, "
        "but the backward pass at line {first_line} freed the saved tensors when it finished, "
        "because it did not pass retain_graph=True."),
    "diag.error.twice.why_noline": (
        "A node on this path needs its saved tensors, but an earlier backward pass freed them "
        "because it did not pass retain_graph=True."),
    "diag.error.twice.fix": "Pass retain_graph=True to the first backward (e.g. loss.backward(retain_graph=True)), or recompute the forward pass before the second backward.",
    "diag.error.inplace.why": (
        "{node} ({expr}, line {node_line}) saved a tensor to compute its gradient, and that tensor "
        "was changed in place afterwards (its version counter moved). The gradient would use the "
        "wrong values, so PyTorch refuses."),
    "diag.error.inplace.where": "The in-place change is at line {line}: {code}.",
    "diag.error.inplace.fix": "Use the out-of-place form (x = x + 1 instead of x += 1, relu instead of relu_), or .clone() the tensor before modifying it.",
    "diag.error.leaf_inplace.why": (
        "An in-place operation would overwrite a leaf that requires grad. Autograd needs the "
        "leaf's value as it was used, and an in-place change to a leaf cannot be recorded."),
    "diag.error.leaf_inplace.fix": "Update parameters under torch.no_grad() (with torch.no_grad(): w -= lr * w.grad), or use an out-of-place op.",
    "diag.error.no_grad_fn.why": (
        "The tensor backward() was called on has no grad_fn and does not require grad: it was "
        "computed only from tensors with requires_grad=False, or under torch.no_grad(), or through .detach()."),
    "diag.error.no_grad_fn.fix": "Create the inputs you want gradients for with requires_grad=True, and compute the loss with grad mode on.",
    "diag.error.shape.why": "The gradient= tensor must have exactly the shape of the tensor backward() is called on: it holds one entry per output element.",
    "diag.error.shape.fix": "Pass a gradient of the same shape, e.g. gradient=torch.ones_like(y).",
    "diag.error.int_grad.why": "Only floating-point tensors can require gradients: derivatives of integer-valued functions are not defined.",
    "diag.error.int_grad.fix": "Create the tensor as float: torch.tensor([1., 2.], requires_grad=True) or dtype=torch.float32.",
    "diag.error.unused.why": "torch.autograd.grad was asked for the gradient of an input the output does not depend on.",
    "diag.error.unused.fix": "Pass allow_unused=True to get None for it, or remove it from inputs.",
    "diag.error.other.why": "The script stopped with this error before finishing.",
    "diag.error.other.fix": "See the line above; the message is PyTorch's own.",
    "diag.error.autotrace.why": "The script stopped here: this is autotrace's own message, not PyTorch's: the script uses something autotrace does not support yet, or a limit was reached.",
    "diag.error.autotrace.fix": "Rewrite that line with what autotrace supports (`autotrace ops` lists it), or raise the limit; under PyTorch the script may run on.",

    # -- verify --------------------------------------------------------------------------
    "verify.cannot_perturb": "{leaf} is not checked: {reason}",
    "verify.reason.unnamed": "no name reaches it, so the re-run cannot find it to move it.",
    "verify.reason.no_value": "its value was not kept (tensor too large).",
    "verify.reason.rerun": "the re-run with it moved failed ({error}).",
    "verify.reason.no_root": "the re-run with it moved did not produce {root}.",
    "verify.intro": "Each element of each leaf is moved by ±h (h = {h}) in float64 and the script re-run; (f(x+h) − f(x−h)) / 2h is compared with autograd's gradient for pass {number}.",
    "verify.largest": "Largest error: {error} ({leaf}{index}).",
    "verify.ok": "Autograd agrees with the numeric derivative (tolerance {tol}).",
    "verify.bad": "Autograd and the numeric derivative disagree beyond {tol}; near a kink (relu at 0, abs at 0, max with ties) a one-sided rule and a central difference legitimately differ.",
    "verify.skipped": "--verify: {reason}",
    "verify.reason.no_pass": "there is no backward pass to check.",
    "verify.reason.no_leaf": "no named leaf tensor requires grad.",
    "verify.reason.root": "the root of pass {number} is not a named tensor of the script.",
    "verify.reason.grad": "pass {number} is a torch.autograd.grad call; it is not checked.",
    "verify.too_big": "{leaf}: {count} elements; only the first {limit} are checked.",

    # -- misc ----------------------------------------------------------------------------
    "stopped": "The script stopped at line {line} with {type}: {message} What ran before that line is explained below.",
    "stopped.with_backward": "The script stopped at line {line} with {type}: {message} So its backward() at line {later} never ran; what ran before line {line} is explained below.",
    "implicit_root": "The script calls no backward(), so it computes no gradient (its .grad stay None). To show what backward() would do, explain runs one from {root} (line {line}), the last single-number tensor with a grad_fn the script bound; pick another with --of NAME.",
    "implicit_root_stopped": "explain runs backward() from {root} (line {line}), the last single-number tensor with a grad_fn bound before the stop. Pick another with --of NAME.",
    "implicit_root_noline": "The script calls no backward(), so it computes no gradient (its .grad stay None). To show what backward() would do, explain runs one from {root}, the last single-number tensor with a grad_fn the script bound; pick another with --of NAME.",
    "no_pass.nonscalar": "The script calls no backward(), and no tensor it binds is a single number with a grad_fn ({names} are not single numbers), so there is no root to start from. Reduce one to a number and name it (loss = {name}.sum()), then run explain again or pass --of loss.",
    "no_pass": "The script never calls backward() or torch.autograd.grad, so no gradient was computed (every .grad stays None). Run with --of NAME to explain the backward pass from a tensor.",
    "pass_error": "This pass stopped with an error; see Diagnostics.",
    "selection.no_pass": "--pass {number}: the script ran {total} backward pass(es).",
    "selection.no_leaf": "--wrt {name}: no leaf named {name} was reached by a backward pass.",
}

EDITIONS: dict[str, dict[str, str]] = {"en": EN}

language = "en"


def text(key: str, **values) -> str:
    """The sentence ``key`` of the current edition with ``values`` filled in."""
    table = EDITIONS.get(language, EN)
    template = table.get(key) or EN[key]
    return template.format(**values)
