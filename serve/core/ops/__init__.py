"""The ten legal operations, one handler each: ``run(ctx, args) -> answer``.

Handlers receive arguments already validated against their declaration in
:mod:`serve.core.registry` and never raise for a legal outcome: every refusal is an answer
with an outcome from :class:`legal.outcomes.Outcome`.
"""
