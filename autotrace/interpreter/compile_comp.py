"""Compiling comprehensions and generator expressions.

Part of the closure compiler: see :mod:`.compile` for the conventions."""

from __future__ import annotations

import ast

from .limits import RT, limit_error, seq_limit
from .ops import hash_check
from .values import ScriptGenerator, UNBOUND



class ComprehensionsMixin:
    """Methods of :class:`.compile.Compiler`."""

    def e_ListComp(self, node):
        return self.comprehension(node, "list")

    def e_SetComp(self, node):
        return self.comprehension(node, "set")

    def e_DictComp(self, node):
        return self.comprehension(node, "dict")

    def e_GeneratorExp(self, node):
        build = self.comprehension(node, "list")

        def ev(fr):
            return ScriptGenerator(build(fr))
        return ev

    def comprehension(self, node, kind: str):
        _site = self.site(node)
        scope = self.info.scope_of(node)
        gens = node.generators
        first_iter = self.expr(gens[0].iter)
        saved = self.scope
        self.scope = scope
        try:
            levels = []
            for i, g in enumerate(gens):
                it = self.expr(g.iter) if i else None
                store = self.store_comp_target(g.target)
                conds = tuple(self.test(c) for c in g.ifs)
                levels.append((it, store, conds))
            if kind == "dict":
                kev = self.expr(node.key)
                vev = self.expr(node.value)
            else:
                eev = self.expr(node.elt)
        finally:
            self.scope = saved
        tmpl = [None, None] + [UNBOUND] * scope.nslots

        # fast path: [elt for name in iterable]
        if kind == "list" and len(gens) == 1 and not gens[0].ifs and type(gens[0].target) is ast.Name:
            slot = scope.slots[gens[0].target.id]

            def ev(fr):
                if 0:
                    _site
                cf = tmpl.copy()
                cf[0] = fr
                out = []
                ap = out.append
                st = RT
                ml = st.max_loop
                ms = st.max_seq
                n = 0
                for v in first_iter(fr):
                    n += 1
                    if n > ml:
                        raise limit_error("max_loop_iterations")
                    st.steps += 1
                    if st.steps > st.check_at:
                        st.tick()
                    cf[slot] = v
                    ap(eev(cf))
                    if n > ms:
                        raise seq_limit(n)
                return out
            return ev

        if kind == "list":
            def leaf(cf, out):
                out.append(eev(cf))
                if len(out) > RT.max_seq:
                    raise seq_limit(len(out))
        elif kind == "set":
            def leaf(cf, out):
                x = eev(cf)
                hash_check(x)
                out.add(x)
                if len(out) > RT.max_seq:
                    raise seq_limit(len(out))
        else:
            def leaf(cf, out):
                k = kev(cf)
                hash_check(k)
                out[k] = vev(cf)
                if len(out) > RT.max_seq:
                    raise seq_limit(len(out))

        def make_level(i, inner):
            it_ev, store, conds = levels[i]
            nxt = levels[i + 1][0] if i + 1 < len(levels) else None

            def level(cf, out, iterable):
                st = RT
                ml = st.max_loop
                n = 0
                for v in iterable:
                    n += 1
                    if n > ml:
                        raise limit_error("max_loop_iterations")
                    st.steps += 1
                    if st.steps > st.check_at:
                        st.tick()
                    store(cf, v)
                    ok = True
                    for c in conds:
                        if not c(cf):
                            ok = False
                            break
                    if ok:
                        if nxt is None:
                            inner(cf, out)
                        else:
                            inner(cf, out, nxt(cf))
            return level

        run = leaf
        for i in range(len(levels) - 1, -1, -1):
            run = make_level(i, run)
        top = run
        factory = {"list": list, "set": set, "dict": dict}[kind]

        def ev(fr):
            if 0:
                _site
            cf = tmpl.copy()
            cf[0] = fr
            out = factory()
            top(cf, out, first_iter(fr))
            return out
        return ev

    def store_comp_target(self, target):
        if type(target) is ast.Name:
            i = self.scope.slots[target.id]

            def st(cf, v):
                cf[i] = v
            return st
        return self.store(target)
