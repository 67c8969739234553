"""The Temporal adapter: one `@activity.defn` per call the workflow makes, each a few lines over
the agent core (`agent/`), with heartbeats, and `activities.boundary`, the one place where a
core error becomes an ApplicationError.

The package itself imports nothing, so a command that needs one part does not load the rest;
`activities.registered` lists what a worker registers.
"""
