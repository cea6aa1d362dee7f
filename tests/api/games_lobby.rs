//! Games before they start: creating, invitations, open seats, cancelling, lists.
