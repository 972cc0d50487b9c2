"""The shared legal vocabulary: identifiers, time, canonical bytes, closed outcomes, errors.

Standard library only; imported by every other package.
"""
