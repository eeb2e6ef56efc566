"""The bundle layer: a narrative with its assets, as a bare ``.lmml`` or a ``.lmmlz`` zip;
opening it safely, its reserved entries, validation, and rewriting and saving it.

Bottom to top: safe zip reading (_archive); what a bundle and its parts are called (_names);
the folder of a bare narrative (_folder); how the reserved embeds decode (_reserved, and the
registry :mod:`lmml_mdit.bundle.reserved_embeds`); what a bundle holds (_contents); settings
values checked (_setting_values); validation (_validation); rewriting lines (_packing);
saving (_saving); fsspec URLs (_urls); opening (_opening); the Bundle class (_bundle); the
protocol the layers above read (_source); and remote assets (_remote). The modules are
private; every name is imported from here, on first use."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_attributes

__all__ = [
    "CLOSEST_NAME_BUDGET",
    "DEFAULT_NAME",
    "FRONT_MATTER_FIRST_LINE",
    "FRONT_MATTER_NAME",
    "FSSPEC_HINT",
    "INVALID_SETTING",
    "LIMITS_CLI_HINT",
    "MAX_YAML_BYTES",
    "MAX_YAML_DEPTH",
    "MAX_YAML_NODES",
    "REMOTE_SUFFIX",
    "SETTINGS_NAMES",
    "SETTING_OUT_OF_RANGE",
    "STREAM_CHUNK",
    "TEXT_EMBEDS_SETTING",
    "BaseDir",
    "Bundle",
    "BundleContents",
    "BundleInput",
    "BundleKind",
    "BundleSource",
    "DefectWarning",
    "FolderNames",
    "InlineReport",
    "Limits",
    "Member",
    "OrphanedEntryWarning",
    "ParseOptions",
    "SeekableFile",
    "UrlFileSystem",
    "ZipArchive",
    "bundle_bytes",
    "bundle_name",
    "check_entry_names",
    "check_setting_values",
    "collision_key",
    "did_you_mean",
    "dump_manifest",
    "entry_holding",
    "fence_text",
    "fences_differing_from_entries",
    "filesystem",
    "find_issues",
    "first_fences",
    "folder_files",
    "has_reserved",
    "inline_assets",
    "is_reference_name",
    "is_remote_name",
    "is_url",
    "is_zip",
    "json_value_offsets",
    "link_target",
    "load_front_matter",
    "load_manifest",
    "load_settings",
    "local_path",
    "manifest_digests",
    "missing_wording",
    "narrative_cap",
    "narrative_entry_name",
    "not_lmml",
    "open_archive",
    "open_bundle",
    "open_url",
    "pack_fences",
    "parse_remote",
    "path_under",
    "problem_message",
    "range_problems",
    "remote_entry",
    "remote_issues",
    "rewrite_fence",
    "save_archive",
    "save_bundle",
    "setting_issues",
    "setting_problems",
    "settings_embed_source",
    "settings_embeds",
    "settings_value_positions",
    "sha256_hex",
    "unsafe_reason",
    "url_basename",
    "url_output",
    "yaml_value_marks",
]

if TYPE_CHECKING:
    from ._archive import (
        LIMITS_CLI_HINT,
        Limits,
        Member,
        SeekableFile,
        ZipArchive,
        check_entry_names,
        collision_key,
        is_zip,
        open_archive,
        unsafe_reason,
    )
    from ._bundle import (
        CLOSEST_NAME_BUDGET,
        Bundle,
        DefectWarning,
    )
    from ._contents import (
        BundleContents,
        BundleKind,
        entry_holding,
        fences_differing_from_entries,
        first_fences,
        has_reserved,
        settings_embeds,
    )
    from ._folder import (
        FolderNames,
        folder_files,
        path_under,
    )
    from ._names import (
        DEFAULT_NAME,
        REMOTE_SUFFIX,
        bundle_name,
        is_reference_name,
        is_remote_name,
        narrative_entry_name,
    )
    from ._opening import (
        STREAM_CHUNK,
        BaseDir,
        BundleInput,
        ParseOptions,
        narrative_cap,
        not_lmml,
        open_bundle,
    )
    from ._packing import (
        InlineReport,
        OrphanedEntryWarning,
        fence_text,
        inline_assets,
        pack_fences,
        rewrite_fence,
    )
    from ._remote import (
        link_target,
        parse_remote,
        remote_entry,
        remote_issues,
    )
    from ._reserved import (
        FRONT_MATTER_FIRST_LINE,
        FRONT_MATTER_NAME,
        MAX_YAML_BYTES,
        MAX_YAML_DEPTH,
        MAX_YAML_NODES,
        SETTINGS_NAMES,
        TEXT_EMBEDS_SETTING,
        dump_manifest,
        load_front_matter,
        load_manifest,
        load_settings,
        manifest_digests,
        sha256_hex,
        yaml_value_marks,
    )
    from ._saving import (
        bundle_bytes,
        save_archive,
        save_bundle,
    )
    from ._setting_values import (
        INVALID_SETTING,
        SETTING_OUT_OF_RANGE,
        check_setting_values,
        json_value_offsets,
        problem_message,
        range_problems,
        setting_issues,
        setting_problems,
        settings_embed_source,
        settings_value_positions,
    )
    from ._source import (
        BundleSource,
    )
    from ._urls import (
        FSSPEC_HINT,
        UrlFileSystem,
        filesystem,
        is_url,
        local_path,
        open_url,
        url_basename,
        url_output,
    )
    from ._validation import (
        did_you_mean,
        find_issues,
        missing_wording,
    )

_NAMES = {
    name: f".{module}"
    for module, names in {
        "_archive": (
            "LIMITS_CLI_HINT",
            "Limits",
            "Member",
            "SeekableFile",
            "ZipArchive",
            "check_entry_names",
            "collision_key",
            "is_zip",
            "open_archive",
            "unsafe_reason",
        ),
        "_bundle": (
            "CLOSEST_NAME_BUDGET",
            "Bundle",
            "DefectWarning",
        ),
        "_contents": (
            "BundleContents",
            "BundleKind",
            "entry_holding",
            "fences_differing_from_entries",
            "first_fences",
            "has_reserved",
            "settings_embeds",
        ),
        "_folder": (
            "FolderNames",
            "folder_files",
            "path_under",
        ),
        "_names": (
            "DEFAULT_NAME",
            "REMOTE_SUFFIX",
            "bundle_name",
            "is_reference_name",
            "is_remote_name",
            "narrative_entry_name",
        ),
        "_opening": (
            "STREAM_CHUNK",
            "BaseDir",
            "BundleInput",
            "ParseOptions",
            "narrative_cap",
            "not_lmml",
            "open_bundle",
        ),
        "_packing": (
            "InlineReport",
            "OrphanedEntryWarning",
            "fence_text",
            "inline_assets",
            "pack_fences",
            "rewrite_fence",
        ),
        "_remote": (
            "link_target",
            "parse_remote",
            "remote_entry",
            "remote_issues",
        ),
        "_reserved": (
            "FRONT_MATTER_FIRST_LINE",
            "FRONT_MATTER_NAME",
            "MAX_YAML_BYTES",
            "MAX_YAML_DEPTH",
            "MAX_YAML_NODES",
            "SETTINGS_NAMES",
            "TEXT_EMBEDS_SETTING",
            "dump_manifest",
            "load_front_matter",
            "load_manifest",
            "load_settings",
            "manifest_digests",
            "sha256_hex",
            "yaml_value_marks",
        ),
        "_saving": (
            "bundle_bytes",
            "save_archive",
            "save_bundle",
        ),
        "_setting_values": (
            "INVALID_SETTING",
            "SETTING_OUT_OF_RANGE",
            "check_setting_values",
            "json_value_offsets",
            "problem_message",
            "range_problems",
            "setting_issues",
            "setting_problems",
            "settings_embed_source",
            "settings_value_positions",
        ),
        "_source": ("BundleSource",),
        "_urls": (
            "FSSPEC_HINT",
            "UrlFileSystem",
            "filesystem",
            "is_url",
            "local_path",
            "open_url",
            "url_basename",
            "url_output",
        ),
        "_validation": (
            "did_you_mean",
            "find_issues",
            "missing_wording",
        ),
    }.items()
    for name in names
}

# Each on first use: ``import lmml_mdit.bundle`` loads none of the modules, and each name
# only the module it lives in (and what that module imports).
__getattr__ = lazy_attributes(__name__, _NAMES)
