"""Rendering transcript messages from a point of view: role/content dicts, chat templates.

The pov's own turns take its ``self_role``, the others' its ``others_role``; pinned turns
keep their role (:data:`~lmml_mdit.transcript.message.PINNED_ROLES`). The view is then
flattened for strict templates by :func:`lmml_mdit.chat.template.flatten`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from ..chat.template import ChatMessage, ChatTokenizer, detect_template_flags, flatten
from ..errors import ChatTemplateError, TranscriptTypeError
from .message import Message, Pov, check_message, pinned_role, pov_roles

if TYPE_CHECKING:
    from ..chat.handlers import Base64Cache, Handler

__all__ = ["role_view", "templated_view"]


def role_view(
    messages: Iterable[Message],
    assets: Mapping[str, bytes],
    *,
    pov: str | Pov,
    parts: bool = False,
    fold_system: bool = False,
    merge: bool = False,
    user_first: bool = False,
    label_authors: bool | None = None,
    handlers: Mapping[str, Handler] | None = None,
) -> list[ChatMessage]:
    """*messages* as ``[{"role", "content"}]`` from *pov*'s point of view (the options are
    :meth:`~lmml_mdit.transcript.transcript.Transcript.render_roles`').

    :raises TranscriptTypeError: for a *pov* of the wrong shape.
    """
    name, self_role, others_role = pov_roles(pov)
    rendered: list[ChatMessage] = []
    cache: Base64Cache | None = None
    if parts:
        # The content parts need the handlers (and their media types) only when asked for.
        from ..chat.handlers import Base64Cache
        from .parts import content_parts

        cache = Base64Cache()
    for message in messages:
        check_message(message)  # its fields may have been changed in place
        pinned = pinned_role(message)
        author: str | None = None
        if pinned is not None:
            role = pinned
        elif message.author == name:
            role = self_role
        else:
            role = others_role
            author = message.author
        text = message.content
        if label_authors and author is not None:
            text = f"{author}: {text}"
            author = None
        entry: ChatMessage = {"role": role, "content": text}
        if parts:
            entry["content"] = content_parts(text, assets, handlers=handlers, cache=cache)
        if author is not None and label_authors is not False:
            entry["author"] = author
        rendered.append(entry)
    return flatten(
        rendered,
        fold_system=fold_system,
        merge=merge,
        user_first=user_first,
        label_authors=label_authors is not False,
    )


def templated_view(
    messages: Iterable[Message],
    assets: Mapping[str, bytes],
    *,
    pov: str | Pov,
    tokenizer: ChatTokenizer | None = None,
    add_generation_prompt: bool = False,
    tokenize: bool = False,
    fold_system: bool | None = None,
    merge: bool | None = None,
    user_first: bool | None = None,
    label_authors: bool | None = None,
    template_kwargs: Mapping[str, object] | None = None,
) -> object:
    """*messages* rendered through a tokenizer's chat template (the options are
    :meth:`~lmml_mdit.transcript.transcript.Transcript.render_templated`').

    :raises TranscriptTypeError: when there is no tokenizer with ``apply_chat_template``.
    :raises ChatTemplateError: when the template refuses the messages.
    """
    if tokenizer is None:
        tokenizer = getattr(pov, "tokenizer", None)
    apply = getattr(tokenizer, "apply_chat_template", None)
    if tokenizer is None or not callable(apply):
        raise TranscriptTypeError(
            "render_templated needs a tokenizer: an object with apply_chat_template",
            hint="pass tokenizer=AutoTokenizer.from_pretrained(...) or a pov with .tokenizer",
        )
    forwarded = dict(template_kwargs or {})
    if fold_system is None or merge is None or user_first is None:
        flags = detect_template_flags(
            tokenizer, render=lambda view, **kw: apply(view, **kw, **forwarded)
        )
        if fold_system is None:
            fold_system = not flags.supports_system_role
        if merge is None:
            merge = flags.requires_alternating_roles
        if user_first is None:
            user_first = flags.requires_alternating_roles
    view = role_view(
        messages,
        assets,
        pov=pov,
        fold_system=fold_system,
        merge=merge,
        user_first=user_first,
        label_authors=label_authors,
    )
    try:
        rendered: object = apply(
            view, tokenize=tokenize, add_generation_prompt=add_generation_prompt, **forwarded
        )
    except Exception as error:
        raise ChatTemplateError(
            f"the chat template refused the view: {error}",
            hint="pass merge=True, user_first=True or fold_system=True (or leave them "
            "None to detect them)",
        ) from error
    return rendered
