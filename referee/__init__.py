"""The referee application: CLI, sessions, service, reports."""
