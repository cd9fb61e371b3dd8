"""Rejecting arguments of the drop-in APIs that amkl does not implement.

Drop-ins keep the reference signatures so existing calls run unchanged; any argument that
would change the result and that amkl cannot honour must raise, naming it, instead of being
ignored.
"""


def reject(function: str, **used: bool) -> None:
    """Raises NotImplementedError naming every argument whose flag in ``used`` is True."""
    names = [name for name, is_used in used.items() if is_used]
    if names:
        raise NotImplementedError(
            f"amkl.{function}: {', '.join(names)} {'is' if len(names) == 1 else 'are'} not "
            f"supported by amkl; leave {'it' if len(names) == 1 else 'them'} at the default")
