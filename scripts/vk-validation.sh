#!/usr/bin/env bash
# The Khronos validation layer (vulkan-validationlayers) below dxcl's Vulkan layer, for the GPU
# path's and the layer's tests (docs/testing.md, "The validation layer"): a message of error
# severity fails the run.
#
#   vk-validation.sh COMMAND [ARGS...]   runs COMMAND under the validation layer
#   source vk-validation.sh              defines vk_validation_start DIR and vk_validation_report
#
# vk_validation_start puts VK_LAYER_KHRONOS_validation last on VK_INSTANCE_LAYERS (below dxcl's,
# so that it checks what DXVK and dxcl's layer ask of the driver), its messages into a file of
# the run's own under DIR; vk_validation_report prints how many errors and the first ones, and
# returns 1 when there are any. One message about DXVK alone is muted: this layer version
# (Debian 12's 1.3.239) does not know VK_FORMAT_A8_UNORM_KHR, which DXVK 2.6 queries.

vk_validation_start() {
  local dir=$1
  [ -f /usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json ] ||
    { echo "vk-validation: needs vulkan-validationlayers (scripts/install-deps.sh)" >&2; return 2; }
  VK_VALIDATION_LOG=$(mktemp "$dir/validation.XXXXXX")
  VK_VALIDATION_SETTINGS=$(mktemp -d "$dir/validation-settings.XXXXXX")
  cat >"$VK_VALIDATION_SETTINGS/vk_layer_settings.txt" <<SETTINGS
khronos_validation.debug_action = VK_DBG_LAYER_ACTION_LOG_MSG
khronos_validation.log_filename = $VK_VALIDATION_LOG
khronos_validation.report_flags = error
khronos_validation.message_id_filter = VUID-vkGetPhysicalDeviceFormatProperties2-format-parameter
SETTINGS
  export VK_LAYER_SETTINGS_PATH="$VK_VALIDATION_SETTINGS"
  export VK_INSTANCE_LAYERS="${VK_INSTANCE_LAYERS:+$VK_INSTANCE_LAYERS:}VK_LAYER_KHRONOS_validation"
}

vk_validation_report() {
  local errors
  errors=$(grep -c 'Validation Error' "$VK_VALIDATION_LOG" || true)
  if [ "$errors" -gt 0 ]; then
    echo "vk-validation: $errors validation errors (Khronos validation layer); the first:" >&2
    grep -m 5 'Validation Error' "$VK_VALIDATION_LOG" | cut -c 1-700 >&2
  else
    echo "vk-validation: the Khronos validation layer reported no error" >&2
  fi
  rm -rf "$VK_VALIDATION_LOG" "$VK_VALIDATION_SETTINGS"
  [ "$errors" -eq 0 ]
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  [ $# -gt 0 ] || { echo "usage: vk-validation.sh COMMAND [ARGS...]" >&2; exit 2; }
  vk_validation_start "${TMPDIR:-/tmp}"
  status=0
  "$@" || status=$?
  vk_validation_report || [ "$status" != 0 ] || status=1
  exit "$status"
fi
