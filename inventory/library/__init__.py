"""Pure catalog logic: part schemas, provenance, compatibility rules, file formats.

Never imports Django; the Django app wraps it.
"""
