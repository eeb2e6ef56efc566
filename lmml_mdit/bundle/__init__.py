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

from ..lazy import lazy_attributes, public_names

if TYPE_CHECKING:
    from ._archive import LIMITS_CLI_HINT as LIMITS_CLI_HINT
    from ._archive import MAX_NAME_BYTES as MAX_NAME_BYTES
    from ._archive import Limits as Limits
    from ._archive import Member as Member
    from ._archive import SeekableFile as SeekableFile
    from ._archive import ZipArchive as ZipArchive
    from ._archive import check_entry_names as check_entry_names
    from ._archive import collision_key as collision_key
    from ._archive import is_zip as is_zip
    from ._archive import open_archive as open_archive
    from ._archive import unsafe_reason as unsafe_reason
    from ._bundle import CLOSEST_NAME_BUDGET as CLOSEST_NAME_BUDGET
    from ._bundle import Bundle as Bundle
    from ._bundle import DefectWarning as DefectWarning
    from ._contents import BundleContents as BundleContents
    from ._contents import BundleKind as BundleKind
    from ._contents import entry_holding as entry_holding
    from ._contents import fences_differing_from_entries as fences_differing_from_entries
    from ._contents import first_fences as first_fences
    from ._contents import has_reserved as has_reserved
    from ._contents import settings_embeds as settings_embeds
    from ._folder import FolderNames as FolderNames
    from ._folder import folder_files as folder_files
    from ._folder import path_under as path_under
    from ._names import DEFAULT_NAME as DEFAULT_NAME
    from ._names import REMOTE_SUFFIX as REMOTE_SUFFIX
    from ._names import bundle_name as bundle_name
    from ._names import is_reference_name as is_reference_name
    from ._names import is_remote_name as is_remote_name
    from ._names import narrative_entry_name as narrative_entry_name
    from ._opening import STREAM_CHUNK as STREAM_CHUNK
    from ._opening import BaseDir as BaseDir
    from ._opening import BundleInput as BundleInput
    from ._opening import ParseOptions as ParseOptions
    from ._opening import narrative_cap as narrative_cap
    from ._opening import not_lmml as not_lmml
    from ._opening import open_bundle as open_bundle
    from ._opening import open_input as open_input
    from ._packing import InlineReport as InlineReport
    from ._packing import OrphanedEntryWarning as OrphanedEntryWarning
    from ._packing import fence_text as fence_text
    from ._packing import inline_assets as inline_assets
    from ._packing import pack_fences as pack_fences
    from ._packing import rewrite_fence as rewrite_fence
    from ._remote import link_target as link_target
    from ._remote import parse_remote as parse_remote
    from ._remote import remote_entry as remote_entry
    from ._remote import remote_issues as remote_issues
    from ._reserved import FRONT_MATTER_FIRST_LINE as FRONT_MATTER_FIRST_LINE
    from ._reserved import FRONT_MATTER_NAME as FRONT_MATTER_NAME
    from ._reserved import MAX_YAML_BYTES as MAX_YAML_BYTES
    from ._reserved import MAX_YAML_DEPTH as MAX_YAML_DEPTH
    from ._reserved import MAX_YAML_NODES as MAX_YAML_NODES
    from ._reserved import SETTINGS_NAMES as SETTINGS_NAMES
    from ._reserved import TEXT_EMBEDS_SETTING as TEXT_EMBEDS_SETTING
    from ._reserved import dump_manifest as dump_manifest
    from ._reserved import load_front_matter as load_front_matter
    from ._reserved import load_manifest as load_manifest
    from ._reserved import load_settings as load_settings
    from ._reserved import manifest_digests as manifest_digests
    from ._reserved import sha256_hex as sha256_hex
    from ._reserved import yaml_value_marks as yaml_value_marks
    from ._saving import FolderReferenceWarning as FolderReferenceWarning
    from ._saving import bundle_bytes as bundle_bytes
    from ._saving import save_archive as save_archive
    from ._saving import save_bundle as save_bundle
    from ._setting_values import INVALID_SETTING as INVALID_SETTING
    from ._setting_values import SETTING_OUT_OF_RANGE as SETTING_OUT_OF_RANGE
    from ._setting_values import check_setting_values as check_setting_values
    from ._setting_values import json_value_offsets as json_value_offsets
    from ._setting_values import problem_message as problem_message
    from ._setting_values import range_problems as range_problems
    from ._setting_values import setting_issues as setting_issues
    from ._setting_values import setting_location as setting_location
    from ._setting_values import setting_problems as setting_problems
    from ._setting_values import settings_embed_source as settings_embed_source
    from ._setting_values import settings_value_positions as settings_value_positions
    from ._source import BundleSource as BundleSource
    from ._urls import FSSPEC_HINT as FSSPEC_HINT
    from ._urls import UrlFileSystem as UrlFileSystem
    from ._urls import filesystem as filesystem
    from ._urls import is_url as is_url
    from ._urls import local_path as local_path
    from ._urls import open_url as open_url
    from ._urls import url_basename as url_basename
    from ._urls import url_failures as url_failures
    from ._urls import url_output as url_output
    from ._validation import did_you_mean as did_you_mean
    from ._validation import find_issues as find_issues
    from ._validation import missing_wording as missing_wording
    from ._validation import unsaved_wording as unsaved_wording

_NAMES = {
    name: f".{module}"
    for module, names in {
        "_archive": (
            "LIMITS_CLI_HINT",
            "MAX_NAME_BYTES",
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
            "open_input",
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
            "FolderReferenceWarning",
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
            "setting_location",
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
            "url_failures",
            "url_output",
        ),
        "_validation": (
            "did_you_mean",
            "find_issues",
            "missing_wording",
            "unsaved_wording",
        ),
    }.items()
    for name in names
}

# Each on first use: ``import lmml_mdit.bundle`` loads none of the modules, and each name
# only the module it lives in (and what that module imports).
__getattr__ = lazy_attributes(__name__, _NAMES)

if not TYPE_CHECKING:  # type checkers read the explicit re-exports above instead
    __all__ = public_names(_NAMES)
