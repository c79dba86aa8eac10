"""Adjudication: the final label a reviewer sets on an item where people disagree,
and the adjudicated reference the figures compare evaluators with.
"""
