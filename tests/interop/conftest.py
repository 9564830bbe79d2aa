"""The interop tests. ``netbox_driver.py`` runs inside NetBox's own virtualenv (it imports
NetBox's apps) and ``netbox_run.py`` is the ``make interop`` step: neither is a test module, so
pytest (``--doctest-modules`` imports every module it collects) leaves them alone."""

collect_ignore = ["netbox_driver.py", "netbox_run.py"]
