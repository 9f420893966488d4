"""Every sentence autotrace writes, as keyed templates, in English and (through a gettext
catalog) in Chinese.

Code never builds a sentence itself: it calls :func:`text` with a key and the values to fill
in (``text("seed.scalar", root="x")``). :data:`EN` is the source of the message catalog: each
key is a gettext ``msgctxt``, its English template the ``msgid``; the Chinese edition lives in
``autotrace/locale/zh/LC_MESSAGES/autotrace.po`` (compiled to ``.mo``), kept in step with
this table by ``python -m autotrace.catalog update``. A key the catalog does not translate
(or whose English changed since it was translated) prints in English.

A template whose words depend on a number is a :class:`Plural`: the value named ``by``
chooses the form (English: one/other; Chinese has one form). Numbers, node names, code and
formulas (``∂x/∂A = 3·A²``) are placeholders, so every language prints them alike.
"""

from __future__ import annotations

import os
from typing import NamedTuple


class Plural(NamedTuple):
    """An English template with a singular and a plural form, chosen by ``values[by]``."""
    one: str
    other: str
    by: str = "count"


EN: dict[str, "str | Plural"] = {
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
    "fold.retained": "These {count} passes walk one graph again and again: its {nodes} nodes, built once from line(s) {lines}, are walked by backward() at line {line} each time. Nothing in the graph changes, so every pass repeats pass {first}'s steps with the same numbers (explained above); only what happens outside the graph changes (the .grad it adds to, an optimizer's updates). Recompute the loss inside the loop to follow the new values. The table shows each pass (‖g‖/‖p‖: norms of each leaf's gradient and value; a plain number for one element). --pass N shows pass N.",
    "fold.walked": "These {count} passes walk one graph again and again: its {nodes} nodes, built once from line(s) {lines}, are walked by the call at line {line} each time. Pass {first} is explained above; the others repeat its steps with these numbers (‖g‖/‖p‖: norms of each leaf's gradient and value; a plain number for one element). --pass N shows pass N.",
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
    "rule.sgd.step_nesterov": "then p ← p − lr·(g + {momentum}·buf)  (nesterov: a step looked ahead along the buffer), lr = {lr}",
    "rule.maximize": "maximize=True: g ← −g  (the step climbs the function instead of descending it)",
    "rule.sgd.wd": "weight decay: g ← g + {wd}·p",
    "rule.adamw.wd": "decoupled weight decay: p ← p·(1 − {lr}·{wd})",
    "rule.adam.m": "rule: m ← {b1}·m + (1 − {b1})·g   (first moment, a running mean of g)",
    "rule.adam.v": "      v ← {b2}·v + (1 − {b2})·g²  (second moment, a running mean of g²)",
    "rule.adam.amsgrad": "      v̂ ← max(v̂, v)  (amsgrad: the largest v so far; the step below divides by √v̂, not √v)",
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

    # -- words the explanation's code joins (lists, locations) ----------------------------
    "label.at_line": "line {line}: {statement}",
    "label.input_n": "input {index}",
    "label.the_output": "the output",
    "list.sep": ", ",
    "list.and": "{items} and {last}",
    "label.colon": ": ",

    # -- run: the tensor table and the grad_fn chains (render/console.py) -----------------
    "run.tensors": "tensors",
    "run.chains": "grad_fn chains",
    "run.col.name": "name",
    "run.col.value": "value",
    "run.col.shape": "shape",
    "run.col.dtype": "dtype",
    "run.col.requires_grad": "requires_grad",
    "run.col.is_leaf": "is_leaf",
    "run.col.grad_fn": "grad_fn",
    "run.col.grad": "grad",
    "run.list.head": "shape {shape} {dtype}  requires_grad={requires_grad}  is_leaf={is_leaf}  grad_fn={grad_fn}",
    "run.list.value": "value {value}",
    "run.stats": "min {min} max {max} norm {norm}",
    "run.summary": "shape {shape}: {stats}",
    "run.warning": "[warning] {where}{category}: {message}",
    "run.warning_line": "line {line}: ",
    "run.tree.leaf": "(leaf)",
    "run.tree.where": "({expr}, line {line})",
    "run.tree.none": "None (input needs no gradient)",
    "run.tree.more": "… (more nodes; see autotrace graph)",
    "run.tree.seen": "{node} (shown above)",
    "run.values": "values and gradients",
    "run.tree.line": "(line {line})",
    "run.tree.shown_above": " (shown above)",
    "run.tree.fold": Plural("\u2026 {count} earlier iteration folded", "\u2026 {count} earlier iterations folded"),
    "run.tree.fold_body": " (loop body \u00d7{count})",
    "run.tree.fold_body_at": " (loop body \u00d7{count}, {where})",
    "run.tree.chain": "(a chain of one op, folded)",
    "run.tree.chain_at": "(a chain of one op, folded, {where})",
    "run.tree.levels": Plural("\u2026 {count} more level (use --depth / explain)", "\u2026 {count} more levels (use --depth / explain)"),
    "run.tree.left_out": "\u2026 {count} more nodes not shown (see autotrace explain or graph)",

    # -- graph: labels, title and legend (render/dot.py) -----------------------------------
    "graph.value": "value {value}",
    "graph.last_value": "last value {value}",
    "graph.unnamed_leaf": "(unnamed leaf)",
    "graph.title_of": " \u2014 graph of {of}",
    "graph.stopped_at": "the script stopped at line {line}: {type}: {message}",
    "graph.stopped": "the script stopped: {type}: {message}",
    "graph.refused_at": "the script did not run: line {line}: {type}: {message}",
    "graph.refused": "the script did not run: {type}: {message}",
    "graph.omitted": "{count:,} of {total:,} nodes not shown (--max-nodes {max_nodes}; nearest the outputs kept)",
    "graph.empty": "no autograd graph: no tensor that requires grad was used in an operation",
    "graph.no_pass": Plural("--pass {number}: it ran {count} backward pass", "--pass {number}: it ran {count} backward passes"),
    "graph.no_pass_at_all": "--pass {number}: it ran no backward pass",
    "graph.legend": "legend",
    "graph.legend.leaf": "leaf tensor (requires_grad)",
    "graph.legend.node": "backward node (grad_fn)",
    "graph.legend.output": "output tensor",
    "graph.legend.saved": "tensor saved for backward",
    "graph.legend.collapsed": "dashed double box: a repeated chain, collapsed",
    "graph.legend.none": "None: input that needs no gradient",
    "graph.legend.pass": "red outline: run by backward pass {number}",
    "graph.legend.edge": "edge label: gradient sent back along the edge (pass {number})",
    "graph.legend.bad": "output holding nan or inf",
    "graph.legend.box": "double box: a module drawn as one box (--depth {depth})",
    "graph.legend.module": "grey frame: the nodes one module call made",
    "graph.legend.fold": "dashed purple frame \u00d7N: a loop body run N times, drawn once",
    "graph.grad": "grad {value}",
    "graph.lines": "lines {first}\u2013{last}",
    "graph.line_statement": "line {line}: {statement}",
    "graph.run_nodes": " ({count:,} nodes)",
    "graph.box.nodes": Plural("{count} node", "{count} nodes"),
    "graph.box.params": Plural(", {count} parameter", ", {count} parameters"),
    "graph.fold.body": "loop body",
    "graph.fold.drawn_once": "drawn once: the last of {count} iterations",
    "graph.more_nodes": "\u2026 {count:,} more nodes",
    "graph.not_shown": "not shown (--max-nodes {max_nodes})",
    "graph.of_no_graph": "--of {name}: {name} is not part of an autograd graph (it does not require grad)",
    "graph.alike.all": "graphs of the same structure",
    "graph.alike.some": "graphs of their own ({count} of them alike)",
    "graph.drawn.where": " (line {line})",
    "graph.drawn": "backward pass {number} of {total} drawn{where}: the passes ran over {alike}; --pass N draws another, --all-passes all of them",
    "graph.rest": "{count:,} nodes of other passes or outside any pass not drawn",
    "graph.folded.item": "\u00d7{count} ({where})",
    "graph.folded": "loop bodies folded, each drawn once: {described}; --no-fold draws every iteration",
    "graph.tip.run": "{count} \u00d7 {pattern} (n{first} \u2026 n{last}), collapsed",
    "graph.tip.box": "{name} ({cls}) drawn as one box (--depth {depth})",
    "graph.tip.params": "parameters: {names}",
    "graph.tip.leaf": "leaf tensor {names}",
    "graph.tip.first_used": "first used on line {line}: {statement}",
    "graph.tip.accumulate": "AccumulateGrad (n{node}): adds incoming gradients into {name}.grad",
    "graph.tip.accumulate_unnamed": "AccumulateGrad (n{node}): adds incoming gradients into the leaf.grad",
    "graph.tip.expression": "expression: {expr}",
    "graph.tip.saved": "{node}._saved_{name}: a tensor saved for backward",
    "graph.tip.output": "output {names} (grad_fn={node})",
    "graph.tip.output_bad": "output {names} (grad_fn={node}): holds nan or inf",
    "graph.tip.module": "nodes made by {name} ({cls})",
    "graph.tip.module_at": "nodes made by {name} ({cls}), called on line {line}",
    "graph.tip.fold": "a loop body the script ran {count} times, each iteration wired the same way; nodes n{lo} \u2026 n{hi}",
    "graph.tip.none": "next_functions[{k}] of {node} is (None, 0): this input needs no gradient",
    "graph.tip.carry": "the value carried into the next iteration of the loop body",
    "graph.tip.edge": "gradient passed from {node} (n{c}) to input {k} ({input}, n{i})",
    "graph.tip.raise_max_nodes": "raise --max-nodes to draw them",
    "graph.mmd.collapsed": "x {count} (collapsed)",
    "graph.mmd.fold": "\u00d7{count} loop body{where}, drawn once",
    "graph.mmd.omitted": "\u2026 {count} more nodes (--max-nodes {max_nodes})",
    "graph.install_hint": "cannot render {fmt}: pygraphviz (which bundles Graphviz) could not be loaded and Graphviz's `dot` program is not on PATH.\nInstall one of them:\n  - pygraphviz into this Python: `{pip} install pygraphviz` (a wheel bundles Graphviz on Linux, macOS and Windows; elsewhere it builds against Graphviz's headers, e.g. `sudo apt-get install graphviz libgraphviz-dev` first);\n  - or Graphviz's `dot`: `sudo apt-get install graphviz` (Debian/Ubuntu), `brew install graphviz` (macOS), `winget install graphviz` or https://graphviz.org/download/ (Windows).\n`--format dot` works now without either (e.g. `-o graph.dot`), and the DOT file can be rendered later or pasted into an online Graphviz viewer.",
    "graph.render.timeout": "Graphviz dot took longer than {seconds} s; try fewer nodes (--max-nodes, --collapse) or --format dot",
    "graph.render.exec": "could not run {exe}: {reason}",
    "graph.render.failed": "Graphviz dot failed (exit {code}): {message}",
    "graph.render.pygraphviz": "pygraphviz failed to render {fmt}: {message}",
    "graph.terminal_note": "note: standard output is a terminal, so this is the graph's DOT source; give -o graph.svg (or .png, .pdf) for a picture",
    "graph.cjk_hint": "warning: the labels hold CJK text and no font with CJK glyphs is installed, so the {fmt} shows empty boxes in their place; install one (Debian/Ubuntu: `sudo apt-get install fonts-noto-cjk`) or write SVG, which the viewer's fonts draw",

    # -- check: golden files and differences (check.py, cli/check.py) ----------------------
    "check.golden.missing": "{path}: no such golden file (write it with --update)",
    "check.golden.directory": "{path}: is a directory, not a golden file",
    "check.golden.not_json": "{path}: not a JSON document ({error})",
    "check.golden.not_object": "{path}: not a JSON object",
    "check.golden.version": "{path}: schema_version {version}; this autotrace reads schema_version 1",
    "check.golden.is_script": "{path}: is the script itself; give the golden another name",
    "check.golden.cannot_write": "{path}: cannot write ({error})",
    "check.reason.limit": "the script hit a limit; a golden file must not pin a limit",
    "check.reason.failed": "the script failed; its golden records no error",
    "check.summary": "{passed} passed, {failed} failed",
    "check.summary.updated": "{updated} updated",
    "check.summary.also_failed": ", {failed} failed",
    "check.stdout": "stdout differs:",
    "check.stdout.more": Plural("… ({count} more diff line)", "… ({count} more diff lines)"),
    "check.stdout.end": "expected {expected} at the end, got {got}",
    "check.error.unexpected": "error: expected none, got {type}: {message}",
    "check.error.missing": "error: expected {type}: {message}, got none (the script now runs to the end)",
    "check.error.field": "error.{key}: expected {expected}, got {got}",
    "check.at_line": " (line {line})",
    "check.warning.unexpected": "warnings[{index}]: unexpected {category}: {message}",
    "check.warning.missing": "warnings[{index}]: expected {category}: {message}, got no warning",
    "check.warning.differs": "warnings[{index}]: expected {category}: {message}, got {got_category}: {got_message}",
    "check.variable.gone": "{name}: expected {expected}, but the script no longer binds it",
    "check.variable.kind": "{name}: expected a {expected}, got a {got}",
    "check.field.missing": "{label}: expected {expected}, the run has no such field",
    "check.field.differs": "{label}: expected {expected}, got {got}",
    "check.describe.tensor": "a {dtype} tensor of shape {shape}{grad_fn}",
    "check.close.no_key": " (no {key})",
    "check.close.key": " ({key} differs{detail})",
    "check.close.shape": " (different shape)",
    "check.close.length": " (length {got} instead of {expected})",
    "check.close.length_at": " (length {got} instead of {expected} at dimension {dim})",
    "check.close.element": " (element {at}: {expected} vs {got})",

    # -- autotrace's own errors, as interpreter/validate.py and limits.py word them --------
    # The run records them in English (JSON, check's goldens); :func:`localize` shows them
    # in the user's language. A field named like a group of keys ({how}, {detail}, {hint},
    # {what}) is itself one of that group's messages.
    "error.class_def": "class definitions are not supported in autotrace scripts (build models with nn.Sequential and functions instead of subclassing nn.Module)",
    "error.unsupported": "{construct} is not supported in autotrace scripts",
    "error.unsupported_statement": "{keyword} statements are not supported in autotrace scripts",
    "error.generators": "generators ({keyword}) are not supported in autotrace scripts",
    "error.bytes": "bytes literals are not supported in autotrace scripts",
    "error.decorators": "decorators are not supported in autotrace scripts",
    "error.async_comprehension": "asynchronous comprehensions are not supported in autotrace scripts",
    "error.del_attribute": "deleting attributes is not supported in autotrace scripts",
    "error.relative_import": "relative imports are not supported in autotrace scripts",
    "error.star_import": "star imports ({code}) are not supported in autotrace scripts",
    "error.import": "import of {module} is not allowed: scripts may import torch (and its submodules), math, random, typing, collections, copy, itertools, functools, time, warnings, dataclasses, matplotlib, matplotlib.pyplot, numpy and __future__",
    "error.name": "name {name} is not available in autotrace scripts{hint}",
    "error.numpy_dtype": "numpy arrays of dtype {dtype} are not supported in autotrace scripts (only numbers and bools)",
    "error.numpy_files": "{name}() is not available in autotrace scripts: scripts cannot read or write files",
    "error.numpy_internals": "{name}() is not available in autotrace scripts: it reaches numpy's internals",
    "error.numpy_ndarray": "np.ndarray(...) cannot be called in autotrace scripts: make arrays with np.zeros, np.ones or np.array",
    "error.numpy_printoption": "{name}={value} is over autotrace's limit of {top} for numpy's print options",
    "error.attribute": "attribute {name} is not available in autotrace scripts",
    "error.reserved": "the name {name} is not allowed in autotrace scripts ({what} names starting and ending with '__' are reserved)",
    "error.what.function": "function",
    "error.what.parameter": "parameter",
    "error.what.keyword": "keyword argument",
    "error.what.variable": "variable",
    "error.what.module": "module",
    "error.what.class": "class",
    "error.nesting": "expression or statement nested too deeply (more than {count} levels)",
    "error.limit.time": "time limit of {value} s reached{how}",
    "error.limit.steps": "step limit of {value} reached{how}",
    "error.limit.loop": "loop iteration limit of {value} reached{how}",
    "error.limit.recursion": "recursion limit of {value} nested script function calls reached{how}",
    "error.limit.output": "output limit of {value} characters reached{how}",
    "error.limit.size": "size limit of {value} elements reached{detail}{how}",
    "error.limit.int": "integer size limit of {value} bits reached{detail}{how}",
    "error.limit.memory": "memory limit of {value} MiB reached{detail}{how}",
    "error.how.raise": " (use {option} to raise it)",
    "error.detail.size": ": {what} would have {count} elements",
    "error.detail.int": ": the result of {op} would have about {bits} bits",
    "error.detail.memory": ": {what} needs {need} MiB, {left} MiB are left",
    "error.detail.allocate": ": Unable to allocate {request}",
    "error.what.result": "the result",
    "error.what.fstring": "the f-string",
    "error.what.array": "an array",
    "error.what.array_shape": "an array of shape {shape}",
    "error.class_keywords": "class keyword arguments (metaclass=...) are not supported yet in autotrace scripts",
    "error.multiple_inheritance": "multiple inheritance is not supported yet in autotrace scripts (a class may have one base)",
    "error.starred_bases": "starred class bases are not supported yet in autotrace scripts",
    "error.special_method": "defining the special method {name} is not supported yet in autotrace scripts",
    "error.yield_lambda": "{keyword} in a lambda is not supported in autotrace scripts",
    "error.yield_expression": "{keyword} inside an expression is not supported in autotrace scripts",
    "error.subclassing": "subclassing {name} is not supported yet in autotrace scripts",
    "error.type_three": "type() with 3 arguments (building a class) is not supported yet in autotrace scripts",
    "error.super_one": "super() with one argument is not supported yet in autotrace scripts",
    "error.super_class": "super() argument 1 must be a class defined by the script in autotrace scripts",
    "error.dataclass_slots": "dataclass(slots=True) is not supported yet in autotrace scripts",
    "error.dataclass_base": "@dataclass on a subclass of {name} is not supported yet in autotrace scripts",
    "error.dataclass_class": "@dataclass applies to classes defined by the script in autotrace scripts",
    "error.not_yet": "{name} is not supported by autotrace yet",
    "error.namedtuple_special": "defining {name} in a NamedTuple class is not supported by autotrace yet",
    "error.attribute_of": "attribute {name} of {owner} objects is not available in autotrace scripts",
    "error.attribute_of_type": "attribute {name} of type object {owner} is not available in autotrace scripts",
    "error.attribute_of_module": "attribute {name} of module {module} is not available in autotrace scripts",
    "error.attribute_assign": "assigning attribute {name} is not supported in autotrace scripts",
    "error.raising": "raising {name} is not allowed in autotrace scripts",
    "error.with_objects": "{owner} objects cannot be used in a 'with' statement in autotrace scripts",
    "error.print_file": "print(file=...) is not supported in autotrace scripts: output always goes to stdout",
    "error.not_subscriptable": "type {name} is not subscriptable in autotrace scripts",
    "error.empty": "empty script",
    "error.too_complex": "expression nested too deeply (more than {count} levels) or too complex",
    "error.compile_complex": "script too complex to compile",
    "error.nul": "script contains NUL bytes (is it a binary file?)",
    "error.utf8": "script is not valid UTF-8 text (invalid byte {byte})",
    "error.surrogate": "script is not valid Unicode text (lone surrogate)",
    "error.too_large_bytes": "script is too large ({size} bytes; at most {top} characters are accepted)",
    "error.too_large_chars": "script is too large ({size} characters; at most {top} are accepted)",
    "error.limit.python_recursion": "Python's recursion limit was reached (the script nests calls or data too deeply)",
    "error.limit.elements": "a tensor of {count} elements is over the limit of {top} elements per tensor{how}",
    "error.limit.work": "{op} would cost about {cost} floating-point operations, over the work limit of {top} for one operation{how}",
    "error.limit.nesting": "nesting limit reached: containers nested more than {count} levels deep cannot be printed, compared or hashed",
    "error.limit.time_phase": "time limit of {value} s reached while {phase}{how}",
    "error.limit.memory_phase": "memory limit of {value} reached while {phase}{how}",
    "error.message_too_large": "<the exception's message is too large to show>",
    "error.numpy_pad_mode": "np.pad(mode=...) takes one of numpy's mode names in autotrace scripts, not a function",
    "error.numpy_einsum_optimize": "np.einsum(optimize=...) takes False, True or 'greedy' in autotrace scripts",
    "error.warnings_pattern": "warnings filter pattern {pattern} is not supported in autotrace scripts (only patterns without groups or '|', at most {count} characters)",
    "error.format_field": "format field {field} is not supported in autotrace scripts: only {{}}, {{0}} and {{name}} fields (no attribute or index lookups)",
    "error.phase.reading": "reading the script",
    "error.phase.running": "running the script",
    "error.phase.explaining": "explaining",
    "error.phase.rendering_explanation": "rendering the explanation",
    "error.phase.rendering_output": "rendering the output",
    "error.phase.drawing": "drawing the graph",
    "error.phase.writing_graph": "writing the graph",
    "error.phase.rendering_graph": "rendering the graph as {format}",
    "error.phase.comparing_runs": "comparing the runs",
    "error.phase.writing_comparison": "writing the comparison",
    "error.phase.reading_golden": "reading the golden file",
    "error.phase.json": "rendering the run as JSON",
    "error.phase.writing_golden": "writing the golden file",
    "error.phase.comparing_golden": "comparing with the golden file",

    # -- words inside the op table's derivative rules (autotrace/ops), shown by explain ----
    # A rule is a formula; these are its English words, replaced where they occur. A rule
    # whose words are not here keeps them in English.
    "words.elsewhere": ", 0 elsewhere",
    "words.selected_index": "1 at the selected index",
    "words.returned_index": "1 at the returned index",
    "words.each_selected_index": "1 at each selected index",
    "words.each_gathered_index": "1 at each gathered index",
    "words.each_indexed": "1 at each indexed element (repeats add up)",
    "words.inside_slice": "1 inside the slice",
    "words.outside_region": "1 outside the written region, 0 inside",
    "words.inside_region": "1 inside the written region",
    "words.view_positions": "1 at the view's positions",
    "words.outside_view": "1 outside the written view; the op's derivative inside",
    "words.reshaped": "1 (same numbers, reshaped)",
    "words.per_copy_add": "1 per copy; copies' gradients add up",
    "words.per_copy": "1 per copy",
    "words.later_positions": "1 for every later position along dim",
    "words.maxima": "1/k at each of the k maxima",
    "words.minima": "1/k at each of the k minima",
    "words.others_along_dim": "∏ of the other elements along dim",
    "words.others": "∏ of the other elements",
    "words.running_product": "∂(running product)/∂",
    "words.bounds": "(0 at the bounds)",
    "words.per_batch": "per batch: ",
    "words.not_implemented": "not implemented",
    "words.summed_to": "(summed to {name}'s shape)",
    "words.zeros_with": "zeros({shape}) with {grad} at {index} along dim {dim}",
    "words.routed_argmax": " routed to the argmax of each window (indices), summed where windows share it",
    "words.summed_n_spatial": " summed over (N, spatial)",
    "words.summed_n_spatial_dims": " summed over N and spatial dims",
    "words.summed_batch_spatial": " summed over the batch and spatial dims",
    "words.summed_batch": " summed over the batch",
    "words.bn_training": "training: ",
    "words.bn_eval": " over (N, spatial); eval: ",
    "words.conv_weight": "sum over the batch of {grad} ⋆ input patches",
    "words.input_patch": "the input patch each kernel weight multiplies",
    "words.target_class": " at the target class",
    "words.numel_mean": "/ numel for mean",
    "words.per_output_position": "1 per output position",

    # -- autotrace ops (cli/ops.py) --------------------------------------------------------
    "ops.title": "autotrace op table",
    "ops.col.op": "op",
    "ops.col.node": "node",
    "ops.col.input": "input",
    "ops.col.vjp": "gradient (vjp)",
    "ops.col.local": "local derivative",
    "ops.unknown": "no op named {name}",

    # -- the command line's own last words (cli/main.py) -----------------------------------
    "main.cannot_write": "autotrace: cannot write the output: {error}",
    "main.internal": "autotrace: internal error (a bug in autotrace, not in your script). Please report it with the script that triggered it.",
    "main.interrupted": "interrupted",

    # -- usage errors, as the commands word them (shown through localize(..., "usage.")) --
    "usage.lang": "--lang {value}: autotrace speaks en and zh",
    "usage.env_lang": "AUTOTRACE_LANG={value}: autotrace speaks en and zh",
    "usage.script_or_expr": "give either SCRIPT or --expr, not both",
    "usage.missing_script": "missing SCRIPT (a path, or - for standard input) or --expr CODE",
    "usage.missing_scripts": "missing SCRIPT (paths, or - for standard input) or --expr CODE",
    "usage.no_file": "{path}: no such file",
    "usage.is_dir": "{path}: is a directory",
    "usage.too_large": "{path}: larger than 64 MiB; scripts are small programs",
    "usage.timeout": "--timeout must be a positive number of seconds",
    "usage.max_steps": "--max-steps must be positive",
    "usage.limit_unknown": "--limit {item}: unknown limit {name}; known: {known}",
    "usage.limit_not_int": "--limit {item}: {value} is not a whole number",
    "usage.limit_positive": "--limit {item}: the value must be positive",
    "usage.width": "--width must be at least {count} columns",
    "usage.format_md": "--format must be text or md, not {value}",
    "usage.pass_from_1": "--pass counts from 1",
    "usage.pass_range": Plural("--pass {number}: the script ran {count} backward pass", "--pass {number}: the script ran {count} backward passes"),
    "usage.wrt": "--wrt {name}: no leaf tensor of the graph is named {quoted} (leaves: {known})",
    "usage.rtol": "--rtol and --atol must be non-negative numbers",
    "usage.expect_one": "--expect names the golden of one script; with several scripts each golden is SCRIPT.expected.json (SCRIPT with .py replaced)",
    "usage.stdin_once": "- (standard input) can be given once",
    "usage.stdin_golden": "a script from standard input or --expr has no path to name its golden after; give --expect FILE.json",
    "usage.expect_path": "--expect needs a file path",
    "usage.max_nodes": "--max-nodes must be at least 1",
    "usage.graph_pass": "--pass N counts from 1 (the first backward pass)",
    "usage.graph_format": "--format {value}: expected one of {known}",
    "usage.no_directory": "-o {path}: the directory {directory} does not exist; create it first",
    "usage.not_directory": "-o {path}: the directory {directory} is not a directory; create it first",
    "usage.output_is_dir": "-o {path}: is a directory; give a file name such as {example}",
    "usage.output_is_script": "-o {path}: that is the script itself; refusing to overwrite it",
    "usage.set_form": "--set expects NAME=VALUE, got {value}",
    "usage.set_name": "--set: {name} is not a valid variable name",
    "usage.set_number": "--set {name}: {value} is not a number or a list of numbers",
    "usage.set_twice": "--set {name} is given twice",
    "usage.set_too_large": "--set {name}: a number is too large for a float32 tensor",
    "usage.set_not_tensor": "--set {name}: not a tensor: {reason} (rows of a nested list must have equal lengths)",
    "usage.set_unused": "--set {name}: the script assigns {name} itself or never uses it; --set only gives values to names the script uses without assigning them",
    "usage.set_missing_one": "{path}: the script uses {names} but never assigns it; give a value on the command line, e.g. {example}",
    "usage.set_missing": "{path}: the script uses {names} but never assigns them; give a value on the command line, e.g. {example}",
    "usage.of": "--of {name}: the script binds no tensor named {quoted}",
    "usage.format_explain": "--format must be text, md or html, not {value}",
    "usage.diff_stdin": "only one of A and B can be - (standard input)",
    "usage.graph_depth": "--depth N counts from 1 (the modules the script calls)",
    "usage.layout_depth": "--depth counts from 1 (the modules the script calls)",
    "usage.run_depth": "--depth must be at least 1",
    "usage.graph_suffix": "-o {path} --format {fmt}: the suffix {suffix} says {named}, --format says {upper}; drop one, or name the file {example}",
    "usage.graph_no_suffix": "-o {path}: cannot tell the format from {suffix}; use .svg, .png, .pdf, .dot, .gv or .mmd, or --format",
    "usage.graph_terminal": "--format {fmt}: refusing to write {upper} bytes to a terminal; give -o graph.{ext}, or pipe the output",
    "usage.cannot_write": "-o {path}: cannot write: {reason}",
    "usage.output_is_dir_plain": "-o {path}: is a directory; give a file name",
    "note.plot": "{path}: the script calls matplotlib; autotrace draws no plots (the calls were accepted and did nothing)",
    "note.script_error": "(the message is PyTorch's or Python's own, as they print it; autotrace explain tells why and how to fix it)",
    # -- diff: where two runs part ----------------------------------------------------------
    "diff.title": "Comparing {a} (A) with {b} (B)",
    "diff.same": "The two runs agree: the same output, graphs, values and gradients.",
    "diff.heading.parting": "Where the runs part",
    "diff.heading.causes": "Why",
    "diff.heading.leaves": "Gradients that differ at the end",
    "diff.heading.changed": "Lines that differ between the scripts",
    "diff.structure.only": "only {side} runs {node} here ({expr}): the graphs have a different op or structure from this point.",
    "diff.shape": "{node} has shape {a} in A and {b} in B.",
    "diff.dtype": "{node} has dtype {a} in A and {b} in B.",
    "diff.value": "the output of {node}",
    "diff.leaf_value": "the value of leaf {name}",
    "diff.forward": "in the forward pass, {what} differs: A {a}, B {b}.",
    "diff.grad_of": "{name}.grad after the pass",
    "diff.grad_into": "the gradient arriving at {node}",
    "diff.backward": "in backward pass {number}, {what} differs (A line {line_a}, B line {line_b}): A {a}, B {b}.",
    "diff.not_reached": "in backward pass {number}, the gradient reaches {name} in {side} but not in {other}.",
    "diff.passes": "A runs {a} backward pass(es), B runs {b}.",
    "diff.no_error": "no error",
    "diff.error": "the runs end differently: A {a}; B {b}.",
    "diff.stdout": "printed line {number} differs: A {a}, B {b}.",
    "diff.nothing": "nothing",
    "diff.side": "{side} line {line}: {text}",
    "diff.factor": " ({leaf}.grad differs by the factor {factor})",
    "diff.leaf": "{name}.grad: A {a}, B {b}",
    "diff.leaf.max": "largest difference {value}",
    "diff.leaf.factor": "B = {factor} × A",
    "diff.leaf.none_a": "None in A",
    "diff.leaf.none_b": "None in B",
    "diff.cause.zero_grad": (
        "Gradients accumulated over extra passes: in {more}, {leaf}.grad sums {count_more} backward "
        "passes, in {fewer} only {count_fewer}. backward() adds into .grad and never overwrites it; "
        "{reset}"),
    "diff.cause.zero_grad.at": "{fewer} resets it at line {line} ({text}); {more} does not, so each of its passes adds to the last. Fix: zero the gradient before each backward() (optimizer.zero_grad(), or {leaf}.grad = None).",
    "diff.cause.zero_grad.none": "one script resets the gradient between the passes and the other does not. Fix: zero the gradient before each backward() (optimizer.zero_grad(), or {leaf}.grad = None).",
    "diff.cause.cut.detach": "In {side}, .detach() at line {line} ({text}) cuts the graph, so no gradient reaches {leaves}; in {other} it does.",
    "diff.cause.cut.data": "In {side}, .data at line {line} ({text}) reads the values without the graph, so no gradient reaches {leaves}; in {other} it does.",
    "diff.cause.cut.no_grad": "In {side}, line {line} ({text}) computes without recording a graph (no_grad), so no gradient reaches {leaves}; in {other} it does.",
    "diff.cause.cut.requires_grad": "In {side}, line {line} ({text}) turns requires_grad off, so no gradient reaches {leaves}; in {other} it does.",
    "diff.cause.cut.unknown": "In {side}, no backward pass reaches {leaves}; in {other} one does: a path of the graph is cut.",
    "diff.cause.seed": "Different random numbers: A seeds with {a}, B with {b}, so the random tensors ({leaves}) start from other values.",
    "diff.cause.seed.default": "PyTorch's default seed",
    "diff.cause.seed.random": "the random tensors",
    "diff.cause.reduction": "A different reduction: A takes the {a} (line {line_a}), B the {b} (line {line_b}); a mean divides every gradient by the number of elements{factor}.",
    "diff.cause.reduction_arg": "A different reduction in {node}: reduction='{a}' in A (line {line_a}), '{b}' in B (line {line_b}){factor}.",
    "diff.cause.shape": "A different shape: {expr} ({node}) is {a} in A (line {line_a}) and {b} in B (line {line_b}); broadcasting then sums gradients over other dimensions.",
    "diff.cause.dtype": "A different dtype: {expr} ({node}) is {a} in A (line {line_a}) and {b} in B (line {line_b}).",
    "diff.cause.inplace": "An in-place change: {side} line {line} ({text}) modifies a tensor in place.",
    "diff.cause.inplace_error": "An in-place change: {side} line {line} ({text}) modifies a tensor that backward needs, and PyTorch refuses the backward pass.",
    "diff.cause.unknown": "No known cause matched; the first difference above and the changed lines show where to look.",

    "check.hint.accumulated": " — the run's {name}.grad is {k} × the golden's: as if {k} backward passes accumulated where one was pinned (a missing zero_grad?)",
    "check.hint.mean": " — the run's {name}.grad is 1/{n} of the golden's: as if a mean over {n} elements replaced a sum",
    "check.hint.factor": " — the run's {name}.grad is {k} × the golden's",

    # -- explain --expect: a hand-derived gradient checked -------------------------------------
    "expect.heading": "Your gradient formulas",
    "expect.ok": "{target} = {formula} holds: {value}.",
    "expect.bad": "{target} = {formula} does not hold: the engine gives {got}, your formula {want}.",
    "expect.shape": "{target} has shape {got_shape}, your formula gives shape {want_shape}.",
    "expect.none": "{target} is None after the run, so there is nothing to compare your formula with.",
    "expect.why.path": "Your formula misses the path through {expr} (line {line}), which contributes {value}.",
    "expect.why.extra_path": "Your formula counts the path through {expr} (line {line}) once too often: it contributes {value}.",
    "expect.why.accumulated": "{target} also holds the gradients of {count} earlier backward pass(es) ({value}): .grad accumulates; compare with one pass, or zero it between passes.",
    "expect.why.factor": "Your formula is off by the constant factor {factor} (engine = {factor} × formula){where}.",
    "expect.why.factor_at": "; the number {value} enters at {node}, line {line} ({expr}): check that step's local derivative",
    "expect.why.sign": "Your formula has the wrong sign (engine = −formula).",
    "expect.why.broadcast_sum": "Your formula is the gradient of each use of {leaf}, shape {want_shape}; {leaf} was broadcast to that shape, so autograd sums over the broadcast dimension(s) {dims}: sum your formula over them.",
    "expect.why.broadcast_count": "Your formula counts one use of {leaf}; {leaf} was broadcast over {count} positions and autograd adds all of them (engine = {count} × formula).",
    "expect.why.transposed": "Your formula is the transpose of the engine's gradient: {leaf}.grad has the shape of {leaf}, {shape}.",
    "expect.why.unknown": "The largest difference is {value} at index {index}.",
    "expect.summary": "{ok} of {total} formulas hold.",

    # -- the step-through page (autotrace html) --------------------------------------------
    "html.title": "Backward passes of {script}",
    "html.prev": "previous",
    "html.next": "next",
    "html.keys": "← → one step · PageUp/PageDown one pass · Home/End · click a node",
    "html.pass": "Pass",
    "html.step": "step",
    "html.of": "of",
    "html.upstream": "upstream",
    "html.rule": "local rule",
    "html.numbers": "with numbers",
    "html.passes_on": "to",
    "html.fan_in": "fan-in: the gradients arriving along several edges are added",
    "html.before": "before",
    "html.increment": "increment",
    "html.after": "after",
    "html.leaves": "Each leaf's .grad at this step",
    "html.none": "None",
    "html.node": "node",
    "html.shape": "shape",
    "html.dtype": "dtype",
    "html.saved": "saved tensors",
    "html.inputs": "next_functions",
    "html.value": "value",
    "html.grad": ".grad",
    "html.line": "line",
    "html.no_passes": "The script runs no backward pass.",
    "html.seed": "seed",
    "html.reset": "reset",
    "html.failed": "the pass stopped with an error here",
    "html.source": "Script",
    "html.graph": "Graph",
    "html.node_record": "Node record",
    "html.click_hint": "Click a node (or Tab to it and press Enter) to see its record.",
    "html.no_graph": "No graph drawing: Graphviz (the dot program or pygraphviz) is not installed. The steps still work.",
    "html.pass_heading": "Pass {number} of {total}: {statement}",
    "html.fold_heading": "Passes {first}–{last} (backward at line {line}): the numbers that change",
    "html.fold_pass": "pass",
    "html.fold_loss": "loss",
}

LANGUAGES = ("en", "zh")
DOMAIN = "autotrace"
ENV_VAR = "AUTOTRACE_LANG"

language = "en"
_catalogs: dict = {}


def set_language(lang: str) -> None:
    """Make ``lang`` ("en" or "zh", or a tag such as ``zh_CN.UTF-8``) the language of
    :func:`text`. Raises ValueError for a language autotrace does not speak."""
    global language
    code = normalize(lang)
    if code not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}; autotrace speaks {' and '.join(LANGUAGES)}")
    language = code


def normalize(tag: str) -> str | None:
    """``zh_CN.UTF-8`` / ``zh-Hans`` / ``ZH`` → ``zh``; ``C`` and ``POSIX`` → ``C``; a
    language autotrace has no catalog for → None."""
    t = tag.strip().replace("-", "_").split(".")[0].split("@")[0]
    if t in ("C", "POSIX"):
        return "C"
    base = t.split("_")[0].lower()
    return base if base in LANGUAGES else None


def from_environment(environ=None) -> str:
    """The language the environment asks for: ``AUTOTRACE_LANG``, else the locale as
    gettext reads it (the first of LANGUAGE, LC_ALL, LC_MESSAGES, LANG that is set; a
    colon-separated list is tried in order; ``C``/``POSIX`` mean English), else English.
    Raises ValueError when AUTOTRACE_LANG names a language autotrace does not speak."""
    env = os.environ if environ is None else environ
    own = env.get(ENV_VAR, "").strip()
    if own:
        code = normalize(own)
        if code not in LANGUAGES:
            raise ValueError(f"{ENV_VAR}={own!r}: autotrace speaks {' and '.join(LANGUAGES)}")
        return code
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(var)
        if value:
            for part in value.split(":"):
                code = normalize(part) if part else None
                if code == "C":
                    return "en"
                if code:
                    return code
            return "en"
    return "en"


def locale_dir() -> str:
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "locale")


def _catalog(lang: str):
    cat = _catalogs.get(lang)
    if cat is None:
        import gettext
        cat = _catalogs[lang] = gettext.translation(DOMAIN, locale_dir(), languages=[lang], fallback=True)
    return cat


def template(key: str, count=None) -> str:
    """The template of ``key`` in the current language, before its values are filled in."""
    source = EN[key]
    if language == "en":
        if isinstance(source, Plural):
            return source.one if count == 1 else source.other
        return source
    cat = _catalog(language)
    if isinstance(source, Plural):
        return cat.npgettext(key, source.one, source.other, count if isinstance(count, int) else 2)
    return cat.pgettext(key, source)


_patterns: dict = {}


def _forms(group: str):
    """(key, English template, count) for every template of ``group``, longest first."""
    out = []
    for k, v in EN.items():
        if k.startswith(group):
            out += [(k, v.one, 1), (k, v.other, 2)] if isinstance(v, Plural) else [(k, v, None)]
    return sorted(out, key=lambda f: -len(f[1]))


def _pattern(source: str):
    """A regex that matches ``source`` (an English template) with any values: the inverse of text."""
    import re
    pat = _patterns.get(source)
    if pat is None:
        pat = _patterns[source] = re.compile(_regex(source, True), re.S)
    return pat


def _regex(source: str, named: bool) -> str:
    import re
    import string
    parts, seen = [], set()
    for literal, name, _spec, _conv in string.Formatter().parse(source):
        parts.append(re.escape(literal))
        if name is None:
            continue
        members = _forms(f"error.{name}.")
        body = "(?:" + "|".join(_regex(f[1], False) for f in members) + ")?" if members else ".*?"
        if named and name.isidentifier() and name not in seen:
            seen.add(name)
            parts.append(f"(?P<{name}>{body})")
        else:
            parts.append(f"(?:{body})")
    return "".join(parts)


def localize(message: str, group: str = "error.") -> str | None:
    """``message``, an English sentence of one of the ``group`` keys with its values
    filled in, in the current language; None when the language is English or no key
    matches (PyTorch's and Python's own messages, which are never translated).
    A value whose field names a group of ``error.`` keys ({how}, {detail}, {hint},
    {what}) is translated as one of them."""
    if language == "en" or not message:
        return None
    import string
    for key, source, count in _forms(group):
        m = _pattern(source).fullmatch(message)
        if m is None:
            continue
        values = {}
        for name, value in m.groupdict().items():
            if value and _forms(f"error.{name}."):
                value = localize(value, f"error.{name}.")
                if value is None:
                    break
            values[name] = value or ""
        else:
            out = []
            for literal, name, _spec, _conv in string.Formatter().parse(template(key, count)):
                out.append(literal)
                if name is not None:
                    out.append(values.get(name, ""))
            return "".join(out)
    return None


def rule_words(rule: str) -> str:
    """``rule`` (a derivative rule from the op table, symbols filled in) with its English
    words in the current language; symbols, code and numbers stay."""
    if language == "en" or not rule:
        return rule
    import re
    import string
    for key, source, _ in _forms("words."):
        if "{" not in source:
            rule = rule.replace(source, template(key))
            continue
        parts = []
        for literal, name, _spec, _conv in string.Formatter().parse(source):
            parts.append(re.escape(literal))
            if name is not None:     # a symbol: no spaces; the last one of the phrase as long as it goes
                parts.append(f"(?P<{name}>\\S+)" if source.endswith("{" + name + "}") else f"(?P<{name}>\\S+?)")
        chinese = template(key)
        rule = re.sub("".join(parts), lambda m: chinese.format(**m.groupdict()), rule)
    return rule


def text(key: str, /, **values) -> str:
    """The sentence ``key`` of the current language with ``values`` filled in."""
    source = EN[key]
    count = values.get(source.by) if isinstance(source, Plural) else None
    return template(key, count).format(**values)
