"""The bounded assistant: resolve the subject in code, plan once, guard, freeze, execute.

The assistant has no legal authority (ARCHITECTURE.md §4). Identity and dates are resolved
in code before any model runs; a model (or the deterministic rule planner) may propose one
typed plan over the closed catalog; code validates it, allows one correction, attests every
date against the reader's own words (date provenance), freezes it and executes it in user
order against the in-process legal core. Optional prose is composed and judged only on
explicit request and can only lose to the typed reply.

Modules, in pipeline order: :mod:`.subjects` (preflight), :mod:`.catalog` (the closed
catalog over the core's schemas), :mod:`.planning` and :mod:`.rules` (planners, the gate),
:mod:`.arguments` and :mod:`.plan` (argument gate and freeze), :mod:`.untrusted` (the
reader's own words), :mod:`.datereader` and :mod:`.provenance` (dates and their provenance),
:mod:`.execute` and :mod:`.replies` (executor, outcome router, named lines), :mod:`.evidence`
and :mod:`.compose` (optional synthesis), :mod:`.model` (the chat transport),
:mod:`.service` (deadlines and the terminal object), :mod:`.build` (assembly over a mounted
core), :mod:`.memory`, :mod:`.admission` and :mod:`.web` (the web boundary). Closed
vocabularies live in :mod:`.vocab`, the shared text helpers in :mod:`.text`; the core's answers
are read only in :mod:`.core_port`.
Importing this package has no side effects.
"""
