"""One timeline of every event that changed a gradient or a parameter, in the order the
script ran them: backward passes, ``optimizer.step()`` (its update rule with the
numbers), ``clip_grad_norm_`` / ``clip_grad_value_``, ``zero_grad()`` / ``.grad = None``
/ ``.grad.zero_()``, ``torch.no_grad()`` blocks, hooks that changed a gradient, and every
warning. Built from the recorder's events (``record.Event``) and the passes."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

import numpy as np

from ..messages import text
from .numbers import SMALL, fmt, fmt_num


@dataclass
class TimelineEvent:
    kind: str                   # backward | optimizer_step | clip_grad_norm | clip_grad_value |
                                # grad_reset | no_grad | hook | warning
    line: int | None
    title: str
    details: list = field(default_factory=list)     # sentences and formulas, one per line
    pass_number: int | None = None                  # backward: its number; else the passes run before
    data: dict = field(default_factory=dict)        # the numbers, for JSON


def timeline(trace, passes, g) -> list:
    """Every event of the run in order (see the module docstring)."""
    out = []
    names = _names(g)
    evs = list(getattr(trace, "events", ()))
    k = 0
    explained = {p.number: p for p in passes}
    for number in range(1, len(trace.passes) + 1):
        while k < len(evs) and evs[k].after_pass < number:
            k = _add(out, evs, k, trace, names)
        out.append(_backward(trace.passes[number - 1], explained.get(number), number, g))
    while k < len(evs):
        k = _add(out, evs, k, trace, names)
    return out


def _names(g):
    def name(d):
        n = d.get("node")
        if n is not None and g.node(n) is not None:
            return g.label(n)
        return d.get("name") or "?"
    return name


def _add(out, evs, k, trace, name) -> int:
    ev = evs[k]
    if ev.kind == "grad_reset":
        # one entry for one call: consecutive resets from the same line
        group = [ev]
        while k + len(group) < len(evs) and evs[k + len(group)].kind == "grad_reset" and \
                evs[k + len(group)].line == ev.line and evs[k + len(group)].after_pass == ev.after_pass:
            group.append(evs[k + len(group)])
        leaves = [name(e.data) for e in group]
        how = group[0].data.get("how")
        out.append(TimelineEvent(kind="grad_reset", line=ev.line, pass_number=ev.after_pass,
                                 title=text("event.grad_reset.none" if how == "none" else "event.grad_reset.zero",
                                            line=ev.line, count=len(leaves), leaves=_short_list(leaves)),
                                 data={"how": how, "leaves": leaves}))
        return k + len(group)
    builder = _BUILDERS.get(ev.kind)
    if builder is not None:
        out.append(builder(ev, trace, name))
    return k + 1


def _short_list(items, limit=4) -> str:
    if len(items) <= limit:
        return text("list.sep").join(items)
    return text("list.sep").join(items[:limit]) + " " + text("event.and_more", count=len(items) - limit)


def _backward(rec, p, number, g) -> TimelineEvent:
    leaves = []
    if p is not None:
        for s in p.steps:
            if s.kind == "accumulate" and s.after is not None:
                leaves.append(s.output)
    root = p.root if p is not None else "?"
    loss = None
    if rec.roots and g.node(rec.roots[0]) is not None:
        v = g.value(rec.roots[0])
        if v is not None and np.size(v) == 1:
            loss = float(np.asarray(v).reshape(-1)[0])
    title = text("event.backward" if rec.line else "event.backward_noline", line=rec.line, number=number, root=root,
                 value=fmt_num(loss) if loss is not None else "?", leaves=_short_list(leaves) or text("event.no_leaf"))
    if rec.error:
        title = text("event.backward_failed", line=rec.line, number=number, error=rec.error)
    return TimelineEvent(kind="backward", line=rec.line, title=title, pass_number=number,
                         data={"root": root, "loss": loss, "leaves": leaves})


def _arr(a) -> str:
    if a is None or np.size(a) <= 4:
        return fmt(a)
    from .table import cell

    return cell(a, limit=0) if np.size(a) > SMALL else fmt(a)


def _norm(a) -> float:
    return float(np.sqrt(np.sum(np.square(np.asarray(a, dtype=np.float64)))))


def _optimizer(ev, trace, name) -> TimelineEvent:
    d = ev.data
    opt = d.get("optimizer", "Optimizer")
    params = d.get("params", [])
    hyper = params[0]["hyper"] if params else {}
    details = []
    if opt == "SGD":
        # torch.optim.SGD's algorithm (torch 2.13 docs): maximize negates g first, then weight
        # decay, the momentum buffer, nesterov's look-ahead g + μ·buf, and p ← p − lr·(that)
        lr, mom, wd = hyper.get("lr"), hyper.get("momentum", 0), hyper.get("weight_decay", 0)
        maximize = bool(hyper.get("maximize"))
        rule = [text("rule.maximize")] if maximize else []
        if wd:
            rule.append(text("rule.sgd.wd", wd=fmt_num(wd)))
        if mom:
            rule.append(text("rule.sgd.momentum", momentum=fmt_num(mom),
                             damp=fmt_num(1 - hyper.get("dampening", 0))))
            if hyper.get("nesterov"):
                rule.append(text("rule.sgd.step_nesterov", momentum=fmt_num(mom), lr=fmt_num(lr)))
            else:
                rule.append(text("rule.sgd.step_buf", lr=fmt_num(lr)))
        else:
            rule.append(text("rule.sgd.step", lr=fmt_num(lr)))
        details += rule
        for q in params:
            g = q["grad"]
            if not mom and not wd and not maximize and np.size(q["after"]) <= SMALL:
                details.append(f"{name(q)}: {fmt(q['before'])} − {fmt_num(lr)}·{_factor(fmt(g))} = {fmt(q['after'])}")
            else:
                extra = ""
                buf = q["state"].get("momentum_buffer")
                if buf is not None:
                    extra = ", " + text("event.buf", value=_arr(buf))
                details.append(text("event.param_update", leaf=name(q), grad=_arr(g), before=_arr(q["before"]),
                                    after=_arr(q["after"])) + extra)
    elif opt in ("Adam", "AdamW"):
        lr, (b1, b2), eps = hyper.get("lr"), hyper.get("betas", (0.9, 0.999)), hyper.get("eps", 1e-8)
        t = None
        for q in params:
            t = q["state"].get("step")
            break
        t = int(np.asarray(t).reshape(-1)[0]) if t is not None else "?"
        if hyper.get("maximize"):
            details.append(text("rule.maximize"))
        if hyper.get("weight_decay"):
            key = "rule.adamw.wd" if hyper.get("decoupled_weight_decay") else "rule.sgd.wd"
            details.append(text(key, wd=fmt_num(hyper["weight_decay"]), lr=fmt_num(lr)))
        details.append(text("rule.adam.m", b1=fmt_num(b1)))
        details.append(text("rule.adam.v", b2=fmt_num(b2)))
        if hyper.get("amsgrad"):
            details.append(text("rule.adam.amsgrad"))
        if isinstance(t, int):
            bc1, bc2 = 1 - b1 ** t, 1 - b2 ** t
            details.append(text("rule.adam.step", lr=fmt_num(lr), t=t, eps=fmt_num(eps),
                                 bc1=fmt_num(bc1), bc2=fmt_num(bc2), step=fmt_num(lr / bc1)))
        for q in params:
            st = q["state"]
            details.append(text("event.adam_param", leaf=name(q), grad=_arr(q["grad"]), m=_arr(st.get("exp_avg")),
                                v=_arr(st.get("exp_avg_sq")), before=_arr(q["before"]), after=_arr(q["after"])))
    else:
        for q in params:
            details.append(text("event.param_update", leaf=name(q), grad=_arr(q["grad"]), before=_arr(q["before"]),
                                after=_arr(q["after"])))
    title = text("event.optimizer_step", line=ev.line, optimizer=opt, count=len(params))
    data = {"optimizer": opt, "hyper": {k: v for k, v in hyper.items() if isinstance(v, (int, float, bool, tuple, list))
                                         or v is None},
            "params": [{"leaf": name(q), "grad": q["grad"], "before": q["before"], "after": q["after"],
                        "state": q["state"]} for q in params]}
    return TimelineEvent(kind="optimizer_step", line=ev.line, title=title, details=details,
                         pass_number=ev.after_pass, data=data)


def _factor(s: str) -> str:
    return f"({s})" if s.startswith("-") else s


def _clip_norm(ev, trace, name) -> TimelineEvent:
    d = ev.data
    clipped = d["scale"] < 1
    title = text("event.clip_norm" if clipped else "event.clip_norm_noop", line=ev.line, max_norm=fmt_num(d["max_norm"]),
                 total=fmt_num(d["total"]), scale=fmt_num(d["scale"]))
    details = [text("event.clip_rule", max_norm=fmt_num(d["max_norm"]), total=fmt_num(d["total"]),
                    scale=fmt_num(d["scale"]))] if clipped else []
    for q in d["params"]:
        details.append(text("event.grad_change", leaf=name(q), before=_arr(q["before"]), after=_arr(q["after"])))
    return TimelineEvent(kind="clip_grad_norm", line=ev.line, title=title, details=details, pass_number=ev.after_pass,
                         data={"max_norm": d["max_norm"], "total_norm": d["total"], "scale": d["scale"],
                               "params": [{"leaf": name(q), "before": q["before"], "after": q["after"]}
                                          for q in d["params"]]})


def _clip_value(ev, trace, name) -> TimelineEvent:
    d = ev.data
    c = d["clip_value"]
    count = sum(int(np.sum(np.asarray(q["before"]) != np.asarray(q["after"]))) for q in d["params"])
    total = sum(int(np.size(q["before"])) for q in d["params"])
    title = text("event.clip_value", line=ev.line, clip=fmt_num(c), count=count, total=total)
    details = [text("event.grad_change", leaf=name(q), before=_arr(q["before"]), after=_arr(q["after"]))
               for q in d["params"]]
    return TimelineEvent(kind="clip_grad_value", line=ev.line, title=title, details=details, pass_number=ev.after_pass,
                         data={"clip_value": c, "clipped": count, "elements": total,
                               "params": [{"leaf": name(q), "before": q["before"], "after": q["after"]}
                                          for q in d["params"]]})


def _no_grad(ev, trace, name) -> TimelineEvent:
    body = _with_body(trace.source, ev.line)
    title = text("event.no_grad", line=ev.line, manager=ev.data.get("manager", "no_grad"))
    details = [text("event.no_grad_body", lines=_short_list(body, 3))] if body else []
    details.append(text("event.no_grad_why"))
    return TimelineEvent(kind="no_grad", line=ev.line, title=title, details=details, pass_number=ev.after_pass,
                         data={"statements": body})


def _with_body(source, line) -> list:
    """The statements of the ``with`` block at ``line``, as "line N: text"."""
    if not line:
        return []
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    lines = source.splitlines()
    for node in ast.walk(tree):
        if isinstance(node, (ast.With,)) and node.lineno == line:
            return [text("label.at_line", line=s.lineno, statement=lines[s.lineno - 1].strip()) for s in node.body]
    return []


def _hook(ev, trace, name) -> TimelineEvent:
    d = ev.data
    title = text("event.hook", line=ev.line, node=name({"node": d.get("node")}),
                 before=_arr(d["before"]), after=_arr(d["after"]))
    return TimelineEvent(kind="hook", line=ev.line, title=title, pass_number=ev.after_pass,
                         data={"node": d.get("node"), "before": d["before"], "after": d["after"]})


def _warning(ev, trace, name) -> TimelineEvent:
    d = ev.data
    title = text("event.warning", line=ev.line, category=d["category"], message=d["message"])
    return TimelineEvent(kind="warning", line=ev.line, title=title, pass_number=ev.after_pass,
                         data={"category": d["category"], "message": d["message"]})


_BUILDERS = {"optimizer_step": _optimizer, "clip_grad_norm": _clip_norm, "clip_grad_value": _clip_value,
             "no_grad": _no_grad, "hook": _hook, "warning": _warning}
