"""The autotrace command line (Typer app)."""
