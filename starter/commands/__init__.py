"""The starter's commands, one module a command (or a family: `pending`, `approve` and `deny`).

Each module's `register(commands)` adds its subparser, arguments and handler; the handler
imports the code that does the work when it runs (`starter/*_command.py`, tested without the
command line), so listing the commands or a mistyped flag loads neither Temporal nor matplotlib.
"""
