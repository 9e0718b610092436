"""Transcript formats: detection, reading and writing (SPEC §9.6).

Public entry points live in :mod:`compactor.formats.registry`.
"""
