"""The transcript layer: a conversation record edited in code, and its lossless LMML form.

Bottom to top: the message and its checks (message); how an author and a content are
spelled in LMML (encoding); which lines are each message's (regions); the file a
transcript was read from (source); planning, writing and checking the text (plans,
readback); the manifest record (record); LMML read and written (reading, writing); the JSON
format (jsonfile); content parts and rendering from a point of view (parts, rendering);
and the Transcript class on top (transcript)."""
