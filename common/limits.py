"""Caps every reader of outside text shares (import files, kind files): what one value may
hold and how deep lists and objects may nest."""

#: The longest text value accepted, in characters (a CSV cell, a kind file's value).
MAX_TEXT_CHARS = 16 * 1024 * 1024
#: The deepest nesting of lists / objects accepted in a value.
MAX_NESTING = 64
