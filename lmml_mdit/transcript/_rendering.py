"""Rendering a transcript's messages from a point of view: role/content dicts, chat templates.

The pov's own turns take its ``self_role``, the others' its ``others_role``; pinned turns
keep their role (:data:`~lmml_mdit.transcript.PINNED_ROLES`). The view is then
flattened for strict templates by :func:`lmml_mdit.chat.flatten`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from ..chat import ChatMessage, ChatTokenizer, detect_template_flags, flatten
from ..errors import ChatTemplateError, TranscriptTypeError
from ._message import Message, Pov, check_message, pinned_role, pov_roles

if TYPE_CHECKING:
    from ..chat import Handler
    from ..conversation import Base64Cache

__all__ = ["Renderable"]


class Renderable:
    """Messages that render from a point of view: the rendering methods of
    :class:`~lmml_mdit.transcript.Transcript`, which supplies the messages
    (iteration) and the assets."""

    def __iter__(self) -> Iterator[Message]:
        raise NotImplementedError

    @property
    def assets(self) -> Mapping[str, bytes]:
        """The assets the messages' ``@name`` references name."""
        raise NotImplementedError

    def render_roles(
        self,
        *,
        pov: str | Pov,
        parts: bool = False,
        fold_tools: bool = False,
        fold_system: bool = False,
        merge: bool = False,
        user_first: bool = False,
        system_midway_as_user: bool = False,
        label_authors: bool | None = None,
        handlers: Mapping[str, Handler] | None = None,
    ) -> list[ChatMessage]:
        """The turns as ``[{"role", "content"}]`` from *pov*'s point of view.

        *pov*'s own turns take its ``self_role`` (``assistant`` for a name string), the
        others' take ``others_role`` (``user``); pinned turns keep their role
        (:data:`~lmml_mdit.transcript.PINNED_ROLES`). The flags select the
        flattening steps of :func:`lmml_mdit.chat.flatten` for strict templates.

        :param pov: a name, or any object with ``name``, ``self_role`` and ``others_role``.
        :param parts: give each content as a list of content parts, every ``@name`` of a
            carried asset turned into parts by :mod:`lmml_mdit.chat`.
        :param fold_tools: make each ``tool`` turn a ``user`` turn opened by
            ``[tool result]`` (see :func:`lmml_mdit.chat.fold_tools`), for a template that
            knows no tool role; a call is already text in its assistant turn.
        :param label_authors: ``None`` labels parts only where a merged run has several
            authors; ``True`` also prefixes every other author's unmerged turn with
            ``"{author}: "``; ``False`` never labels.
        :param handlers: per-call asset handlers for *parts* (see
            :func:`lmml_mdit.chat.build_parts`).
        :raises TranscriptTypeError: for a *pov* of the wrong shape.
        """
        name, self_role, others_role = pov_roles(pov)
        rendered: list[ChatMessage] = []
        cache: Base64Cache | None = None
        if parts:
            # The content parts need the handlers (and their media types) only when asked for.
            from ..conversation import Base64Cache
            from ._parts import content_parts

            cache = Base64Cache()
        for message in self:
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
                entry["content"] = content_parts(text, self.assets, handlers=handlers, cache=cache)
            if author is not None and label_authors is not False:
                entry["author"] = author
            rendered.append(entry)
        return flatten(
            rendered,
            fold_tools=fold_tools,
            fold_system=fold_system,
            merge=merge,
            user_first=user_first,
            system_midway_as_user=system_midway_as_user,
            label_authors=label_authors is not False,
        )

    def render_templated(
        self,
        *,
        pov: str | Pov,
        tokenizer: ChatTokenizer | None = None,
        add_generation_prompt: bool = False,
        tokenize: bool = False,
        fold_tools: bool | None = None,
        fold_system: bool | None = None,
        merge: bool | None = None,
        user_first: bool | None = None,
        label_authors: bool | None = None,
        **template_kwargs: object,
    ) -> object:
        """Render the turns through a tokenizer's chat template.

        Only ``tokenizer.apply_chat_template`` is needed
        (:class:`~lmml_mdit.chat.ChatTokenizer`: any object with it works; nothing
        imports ``transformers``). Flattening flags left as ``None`` are detected from the
        template (:func:`lmml_mdit.chat.detect_template_flags`): a template that does not
        show tool calls and results gets *fold_tools* (detected only when a ``tool`` turn is
        there), one without a system role gets
        *fold_system*, a strict one gets *merge* and *user_first*, one that drops a system
        message after the start gets it as a user message. Pass
        ``False`` to see the raw role-swapped view.

        :param pov: as for :meth:`render_roles`.
        :param tokenizer: the tokenizer; defaults to ``pov.tokenizer``.
        :param add_generation_prompt: append the template's assistant opening.
        :param tokenize: return token ids instead of a string (the ``input_ids`` of the
            dict a tokenizer gives back, as transformers 5 does, unless ``return_dict`` is
            passed: then the dict itself).
        :param template_kwargs: forwarded to ``apply_chat_template`` (``tools``,
            ``enable_thinking``, ``chat_template``, ``return_dict``, ...).
        :returns: the text, or the token ids.
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
        flags = None
        if fold_tools is None and not any(pinned_role(message) == "tool" for message in self):
            fold_tools = False  # no tool turn to fold: nothing to detect for it
        if fold_tools is None or fold_system is None or merge is None or user_first is None:
            flags = detect_template_flags(
                tokenizer, render=lambda view, **kw: apply(view, **kw, **template_kwargs)
            )
            if fold_tools is None:
                fold_tools = not flags.supports_tool_calls
            if fold_system is None:
                fold_system = not flags.supports_system_role
            if merge is None:
                merge = flags.requires_alternating_roles
            if user_first is None:
                user_first = flags.requires_alternating_roles
        view = self.render_roles(
            pov=pov,
            fold_tools=bool(fold_tools),
            fold_system=fold_system,
            merge=merge,
            user_first=user_first,
            # a template that would drop a later system text gets it as a user message
            system_midway_as_user=flags is not None and not flags.supports_system_midway,
            label_authors=label_authors,
        )
        try:
            rendered = apply(
                view,
                tokenize=tokenize,
                add_generation_prompt=add_generation_prompt,
                **template_kwargs,
            )
        except Exception as error:
            raise ChatTemplateError(
                f"the chat template refused the view: {error}",
                hint="pass merge=True, user_first=True or fold_system=True (or leave them "
                "None to detect them)",
            ) from error
        if tokenize and "return_dict" not in template_kwargs and isinstance(rendered, Mapping):
            # transformers 5 gives a dict (input_ids, attention_mask) unless return_dict
            # is False; the token ids are what was asked for.
            return rendered.get("input_ids", rendered)
        return rendered
