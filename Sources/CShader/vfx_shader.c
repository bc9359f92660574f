// Users' shaders as Vulkan compute (see vfx_shader.h). The loader, libvulkan.so.1, comes
// through COnDemand; its vkGetInstanceProcAddr gives every other Vulkan function.
#define VK_NO_PROTOTYPES
#include "vfx_shader.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan.h>

#include "../COnDemand/include/vidfx_on_demand.h"

// MARK: the libraries

static const char *const vulkan_names[] = {"vkGetInstanceProcAddr"};
static struct {
    PFN_vkGetInstanceProcAddr get_instance_proc_addr;
} vkl;
static vfx_library vulkan_library = VFX_LIBRARY_INIT("libvulkan.so.1", vulkan_names, vkl);

// MARK: the context

#define VK_FUNCTIONS(X) \
    X(vkDestroyInstance) X(vkEnumeratePhysicalDevices) X(vkGetPhysicalDeviceProperties) \
    X(vkGetPhysicalDeviceQueueFamilyProperties) X(vkGetPhysicalDeviceMemoryProperties) X(vkCreateDevice) \
    X(vkGetDeviceProcAddr) X(vkGetDeviceQueue) X(vkCreateCommandPool) X(vkAllocateCommandBuffers) \
    X(vkFreeCommandBuffers) X(vkCreateDescriptorSetLayout) X(vkCreatePipelineLayout) X(vkCreateShaderModule) \
    X(vkDestroyShaderModule) X(vkCreateComputePipelines) X(vkDestroyPipeline) X(vkCreateDescriptorPool) \
    X(vkDestroyDescriptorPool) X(vkAllocateDescriptorSets) X(vkUpdateDescriptorSets) X(vkCreateBuffer) \
    X(vkDestroyBuffer) X(vkGetBufferMemoryRequirements) X(vkAllocateMemory) X(vkFreeMemory) X(vkBindBufferMemory) \
    X(vkMapMemory) X(vkUnmapMemory) X(vkBeginCommandBuffer) X(vkEndCommandBuffer) X(vkCmdBindPipeline) \
    X(vkCmdBindDescriptorSets) X(vkCmdDispatch) X(vkCmdPipelineBarrier) X(vkCreateFence) X(vkDestroyFence) \
    X(vkResetFences) X(vkWaitForFences) X(vkQueueSubmit) X(vkResetCommandBuffer) X(vkCreateBufferView) \
    X(vkDestroyBufferView) X(vkCreateImage) X(vkDestroyImage) X(vkGetImageMemoryRequirements) X(vkBindImageMemory) \
    X(vkCreateImageView) X(vkDestroyImageView) X(vkCreateSampler) X(vkDestroySampler) X(vkCmdCopyBufferToImage)

static struct {
#define FIELD(name) PFN_##name name;
    VK_FUNCTIONS(FIELD)
#undef FIELD
} vk;

static struct {
    pthread_mutex_t lock;  // the queue, and opening
    int state;             // 0 not tried, 1 open, -1 failed
    char reason[512];
    VkInstance instance;
    VkPhysicalDevice physical;
    VkPhysicalDeviceMemoryProperties memory;
    VkDevice device;
    VkQueue queue;
    uint32_t family;
    VkCommandPool pool;
    VkDescriptorSetLayout set_layout;
    VkPipelineLayout pipeline_layout;
    VkSampler sampler;        // bilinear in pixels, clamped: a layer shader's `source`
    uint32_t group_width;     // invocations a group, along a row
    uint32_t most_texels;     // the most pixels a frame's texel buffers hold
    uint32_t most_groups;     // the most work groups along x in one dispatch
    char device_name[256];
} ctx = {.lock = PTHREAD_MUTEX_INITIALIZER};

static int fail(const char *text) {
    snprintf(ctx.reason, sizeof ctx.reason, "%s", text);
    ctx.state = -1;
    return -1;
}

static int open_context(int wanted) {
    // A stand-in for tests: another file name for the loader.
    const char *name = getenv("VIDFX_VULKAN_LIBRARY");
    if (name && *name) vulkan_library.soname = name;
    const char *why = vfx_library_load(&vulkan_library);
    if (why) {
        snprintf(ctx.reason, sizeof ctx.reason, "%s; shaders need Vulkan: apt-get install libvulkan1 mesa-vulkan-drivers", why);
        ctx.state = -1;
        return -1;
    }
    PFN_vkCreateInstance create_instance = (PFN_vkCreateInstance)vkl.get_instance_proc_addr(NULL, "vkCreateInstance");
    if (!create_instance) return fail("the Vulkan loader has no vkCreateInstance");
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .pApplicationName = "vidfx", .apiVersion = VK_API_VERSION_1_1};
    VkInstanceCreateInfo info = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
    if (create_instance(&info, NULL, &ctx.instance) != VK_SUCCESS) return fail("Vulkan: no instance (is a driver installed? apt-get install mesa-vulkan-drivers)");
#define LOAD(name) vk.name = (PFN_##name)vkl.get_instance_proc_addr(ctx.instance, #name); if (!vk.name) return fail("Vulkan: no " #name);
    VK_FUNCTIONS(LOAD)
#undef LOAD
    uint32_t count = 0;
    vk.vkEnumeratePhysicalDevices(ctx.instance, &count, NULL);
    if (count == 0) return fail("Vulkan: no device (apt-get install mesa-vulkan-drivers for the CPU's lavapipe)");
    if (count > 16) count = 16;
    VkPhysicalDevice devices[16];
    vk.vkEnumeratePhysicalDevices(ctx.instance, &count, devices);
    // By type, never by index: lavapipe may be device 0. A GPU first unless the CPU is asked for.
    int best = -1, best_rank = 0;
    for (uint32_t i = 0; i < count; i++) {
        VkPhysicalDeviceProperties p;
        vk.vkGetPhysicalDeviceProperties(devices[i], &p);
        int gpu = p.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU ? 3 : p.deviceType == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU ? 2 : 0;
        int cpu = p.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
        int rank = wanted == 1 ? cpu : wanted == 2 ? gpu : (gpu ? gpu : cpu);
        if (rank > best_rank) { best_rank = rank; best = (int)i; }
    }
    if (best < 0) return fail(wanted == 2 ? "--device gpu: the Vulkan loader has no GPU here (--device cpu or auto runs shaders on the CPU)" : "Vulkan: no CPU device (apt-get install mesa-vulkan-drivers)");
    ctx.physical = devices[best];
    VkPhysicalDeviceProperties props;
    vk.vkGetPhysicalDeviceProperties(ctx.physical, &props);
    snprintf(ctx.device_name, sizeof ctx.device_name, "%s", props.deviceName);
    // Lavapipe runs a group's invocations as the lanes of its vectors, a group at a time
    // on each thread: wide groups spread the per-group cost (256 invocations, four pixels
    // each). A GPU takes 256 too.
    uint32_t width = 256;
    if (width > props.limits.maxComputeWorkGroupInvocations) width = props.limits.maxComputeWorkGroupInvocations;
    if (width > props.limits.maxComputeWorkGroupSize[0]) width = props.limits.maxComputeWorkGroupSize[0];
    ctx.group_width = width ? width : 1;
    ctx.most_texels = props.limits.maxTexelBufferElements;
    ctx.most_groups = props.limits.maxComputeWorkGroupCount[0] ? props.limits.maxComputeWorkGroupCount[0] : 1;
    vk.vkGetPhysicalDeviceMemoryProperties(ctx.physical, &ctx.memory);
    uint32_t families = 0;
    vk.vkGetPhysicalDeviceQueueFamilyProperties(ctx.physical, &families, NULL);
    if (families > 16) families = 16;
    VkQueueFamilyProperties family[16];
    vk.vkGetPhysicalDeviceQueueFamilyProperties(ctx.physical, &families, family);
    ctx.family = UINT32_MAX;
    for (uint32_t i = 0; i < families; i++) if (family[i].queueFlags & VK_QUEUE_COMPUTE_BIT) { ctx.family = i; break; }
    if (ctx.family == UINT32_MAX) return fail("Vulkan: the device has no compute queue");
    float priority = 1;
    VkDeviceQueueCreateInfo queue = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueFamilyIndex = ctx.family,
                                     .queueCount = 1, .pQueuePriorities = &priority};
    VkDeviceCreateInfo device = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .queueCreateInfoCount = 1, .pQueueCreateInfos = &queue};
    if (vk.vkCreateDevice(ctx.physical, &device, NULL, &ctx.device) != VK_SUCCESS) return fail("Vulkan: cannot open the device");
    vk.vkGetDeviceQueue(ctx.device, ctx.family, 0, &ctx.queue);
    VkCommandPoolCreateInfo pool = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                    .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, .queueFamilyIndex = ctx.family};
    if (vk.vkCreateCommandPool(ctx.device, &pool, NULL, &ctx.pool) != VK_SUCCESS) return fail("Vulkan: no command pool");
    // `source(p)` of a layer or distortion shader: the frame as an image, filtered by the
    // device's own bilinear unit, in pixels (texel centres at i + 0.5, as the contract has
    // them), clamped at the edges.
    VkSamplerCreateInfo sampler = {.sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO, .magFilter = VK_FILTER_LINEAR, .minFilter = VK_FILTER_LINEAR,
                                   .mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST, .addressModeU = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
                                   .addressModeV = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE, .addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
                                   .unnormalizedCoordinates = VK_TRUE};
    if (vk.vkCreateSampler(ctx.device, &sampler, NULL, &ctx.sampler) != VK_SUCCESS) return fail("Vulkan: no sampler");
    VkDescriptorSetLayoutBinding bindings[7] = {
        {.binding = 0, .descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER, .descriptorCount = 1, .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT},
        {.binding = 1, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER, .descriptorCount = 1, .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT},
        {.binding = 2, .descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, .descriptorCount = 1, .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT},
        {.binding = 3, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .descriptorCount = 1, .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT},
        {.binding = 4, .descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER, .descriptorCount = 1, .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT},
        // The program's halt word, read by every loop of the user's (see `halt` below).
        {.binding = 5, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .descriptorCount = 1, .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT},
        // The frame as a sampled image (programs made `sampled` only).
        {.binding = 6, .descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, .descriptorCount = 1, .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
         .pImmutableSamplers = &ctx.sampler},
    };
    VkDescriptorSetLayoutCreateInfo set = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, .bindingCount = 7, .pBindings = bindings};
    if (vk.vkCreateDescriptorSetLayout(ctx.device, &set, NULL, &ctx.set_layout) != VK_SUCCESS) return fail("Vulkan: no descriptor layout");
    VkPipelineLayoutCreateInfo layout = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, .setLayoutCount = 1, .pSetLayouts = &ctx.set_layout};
    if (vk.vkCreatePipelineLayout(ctx.device, &layout, NULL, &ctx.pipeline_layout) != VK_SUCCESS) return fail("Vulkan: no pipeline layout");
    ctx.state = 1;
    return 0;
}

static int preferred_device;

void vfx_shader_prefer(int device) {
    pthread_mutex_lock(&ctx.lock);
    preferred_device = device;
    pthread_mutex_unlock(&ctx.lock);
}

const char *vfx_shader_open(int device) {
    pthread_mutex_lock(&ctx.lock);
    if (ctx.state == 0) open_context(device ? device : preferred_device);
    const char *out = ctx.state == 1 ? NULL : ctx.reason;
    pthread_mutex_unlock(&ctx.lock);
    return out;
}

const char *vfx_shader_device_name(void) { return ctx.device_name; }

// MARK: programs

typedef struct {
    VkBuffer buffer;
    VkDeviceMemory memory;
    void *mapped;
    VkDeviceSize size;
} mapped_buffer;

struct vfx_shader_program {
    pthread_mutex_t lock;
    VkShaderModule module;
    VkPipeline pipeline;
    VkDescriptorPool descriptors;
    VkDescriptorSet set;          // the frame from the source buffer
    VkDescriptorSet chained_set;  // the frame from the previous program's destination
    uint64_t chained_from;        // the frame id (`frame_id`) chained_set reads, 0 none
    VkCommandBuffer commands;
    VkFence fence;
    size_t uniform_size;
    mapped_buffer source, destination, uniforms, images;
    // One word the host sets to end a run past its limit: every loop of the user's
    // reads it now and then (ShaderSource's vfx_go), so an endless loop ends and the
    // program stays usable, where a fence left pending would hold the device for good.
    mapped_buffer halt;
    VkBufferView source_view, blocks_view, destination_view, destination_pixels_view;
    // A `sampled` program's frame as an image, copied from the frame's buffer before its
    // dispatch (binding 6).
    int sampled;
    VkImage frame_image;
    VkDeviceMemory frame_memory;
    VkImageView frame_view;
    uint64_t frame_id;  // names these frame buffers, unique in the process (0: none)
    uint64_t images_generation;  // which images the images buffer holds (0: none yet)
    int width, height;
    int lost;  // a run passed its time limit: its fence may still be pending
};

static void free_buffer(mapped_buffer *b) {
    if (b->mapped) vk.vkUnmapMemory(ctx.device, b->memory);
    if (b->buffer) vk.vkDestroyBuffer(ctx.device, b->buffer, NULL);
    if (b->memory) vk.vkFreeMemory(ctx.device, b->memory, NULL);
    memset(b, 0, sizeof *b);
}

static int make_buffer(mapped_buffer *b, VkDeviceSize size, VkBufferUsageFlags usage) {
    VkBufferCreateInfo info = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size, .usage = usage,
                               .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    if (vk.vkCreateBuffer(ctx.device, &info, NULL, &b->buffer) != VK_SUCCESS) return -1;
    VkMemoryRequirements needs;
    vk.vkGetBufferMemoryRequirements(ctx.device, b->buffer, &needs);
    // Host-visible and coherent, cached where it can be (reading the result back from
    // uncached memory is slow on a GPU).
    uint32_t type = UINT32_MAX;
    VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    for (int pass = 0; pass < 2 && type == UINT32_MAX; pass++) {
        VkMemoryPropertyFlags flags = want | (pass == 0 ? VK_MEMORY_PROPERTY_HOST_CACHED_BIT : 0);
        for (uint32_t i = 0; i < ctx.memory.memoryTypeCount; i++) {
            if ((needs.memoryTypeBits & (1u << i)) && (ctx.memory.memoryTypes[i].propertyFlags & flags) == flags) { type = i; break; }
        }
    }
    if (type == UINT32_MAX) return -1;
    VkMemoryAllocateInfo allocate = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = needs.size, .memoryTypeIndex = type};
    if (vk.vkAllocateMemory(ctx.device, &allocate, NULL, &b->memory) != VK_SUCCESS) return -1;
    if (vk.vkBindBufferMemory(ctx.device, b->buffer, b->memory, 0) != VK_SUCCESS) return -1;
    if (vk.vkMapMemory(ctx.device, b->memory, 0, size, 0, &b->mapped) != VK_SUCCESS) { b->mapped = NULL; return -1; }
    b->size = size;
    return 0;
}

vfx_shader_program *vfx_shader_program_make(const uint32_t *words, size_t count, size_t uniform_size, int sampled, char *error, size_t error_size) {
    const char *why = vfx_shader_open(0);
    if (why) { snprintf(error, error_size, "%s", why); return NULL; }
    vfx_shader_program *p = calloc(1, sizeof *p);
    if (!p) { snprintf(error, error_size, "out of memory"); return NULL; }
    pthread_mutex_init(&p->lock, NULL);
    p->uniform_size = uniform_size < 16 ? 16 : uniform_size;
    p->sampled = sampled != 0;
    VkShaderModuleCreateInfo module = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = count * 4, .pCode = words};
    if (vk.vkCreateShaderModule(ctx.device, &module, NULL, &p->module) != VK_SUCCESS) goto failed;
    // The group's width, the program's local_size_x_id 0.
    VkSpecializationMapEntry entry = {.constantID = 0, .offset = 0, .size = sizeof(uint32_t)};
    VkSpecializationInfo special = {.mapEntryCount = 1, .pMapEntries = &entry, .dataSize = sizeof(uint32_t), .pData = &ctx.group_width};
    VkComputePipelineCreateInfo pipeline = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_COMPUTE_BIT, .module = p->module,
                  .pName = "main", .pSpecializationInfo = &special},
        .layout = ctx.pipeline_layout,
    };
    if (vk.vkCreateComputePipelines(ctx.device, VK_NULL_HANDLE, 1, &pipeline, NULL, &p->pipeline) != VK_SUCCESS) goto failed;
    // Two sets: the frame read from the program's own source, or from the destination of
    // the program before it in a run (vfx_shader_chain_run).
    VkDescriptorPoolSize sizes[5] = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 4}, {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 2},
                                     {VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER, 4}, {VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER, 2},
                                     {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 2}};
    VkDescriptorPoolCreateInfo pool = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, .maxSets = 2, .poolSizeCount = 5, .pPoolSizes = sizes};
    if (vk.vkCreateDescriptorPool(ctx.device, &pool, NULL, &p->descriptors) != VK_SUCCESS) goto failed;
    VkDescriptorSetLayout layouts[2] = {ctx.set_layout, ctx.set_layout};
    VkDescriptorSet sets[2];
    VkDescriptorSetAllocateInfo set = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO, .descriptorPool = p->descriptors,
                                       .descriptorSetCount = 2, .pSetLayouts = layouts};
    if (vk.vkAllocateDescriptorSets(ctx.device, &set, sets) != VK_SUCCESS) goto failed;
    p->set = sets[0];
    p->chained_set = sets[1];
    VkCommandBufferAllocateInfo commands = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = ctx.pool,
                                            .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1};
    pthread_mutex_lock(&ctx.lock);  // the pool is the context's
    VkResult made = vk.vkAllocateCommandBuffers(ctx.device, &commands, &p->commands);
    pthread_mutex_unlock(&ctx.lock);
    if (made != VK_SUCCESS) goto failed;
    VkFenceCreateInfo fence = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    if (vk.vkCreateFence(ctx.device, &fence, NULL, &p->fence) != VK_SUCCESS) goto failed;
    if (make_buffer(&p->uniforms, p->uniform_size, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT) != 0) goto failed;
    if (make_buffer(&p->halt, 16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT) != 0) goto failed;
    return p;
failed:
    snprintf(error, error_size, "Vulkan: the shader's pipeline could not be made on %s", ctx.device_name);
    vfx_shader_program_free(p);
    return NULL;
}

/// The frame's buffers and their views.
static void free_frame(vfx_shader_program *p) {
    VkBufferView *views[4] = {&p->source_view, &p->blocks_view, &p->destination_view, &p->destination_pixels_view};
    for (int i = 0; i < 4; i++) {
        if (*views[i]) vk.vkDestroyBufferView(ctx.device, *views[i], NULL);
        *views[i] = VK_NULL_HANDLE;
    }
    free_buffer(&p->source);
    free_buffer(&p->destination);
    if (p->frame_view) vk.vkDestroyImageView(ctx.device, p->frame_view, NULL);
    if (p->frame_image) vk.vkDestroyImage(ctx.device, p->frame_image, NULL);
    if (p->frame_memory) vk.vkFreeMemory(ctx.device, p->frame_memory, NULL);
    p->frame_view = VK_NULL_HANDLE;
    p->frame_image = VK_NULL_HANDLE;
    p->frame_memory = VK_NULL_HANDLE;
    p->width = p->height = 0;
    p->frame_id = 0;
    p->chained_from = 0;
}

static atomic_uint_fast64_t frames_made;

/// A `sampled` program's frame as an image, BGRA as the buffers hold it, on the device's
/// own memory (filled by a copy in the program's run).
static int make_frame_image(vfx_shader_program *p, int width, int height) {
    VkImageCreateInfo info = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .imageType = VK_IMAGE_TYPE_2D, .format = VK_FORMAT_B8G8R8A8_UNORM,
                              .extent = {(uint32_t)width, (uint32_t)height, 1}, .mipLevels = 1, .arrayLayers = 1,
                              .samples = VK_SAMPLE_COUNT_1_BIT, .tiling = VK_IMAGE_TILING_OPTIMAL,
                              .usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                              .sharingMode = VK_SHARING_MODE_EXCLUSIVE, .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED};
    if (vk.vkCreateImage(ctx.device, &info, NULL, &p->frame_image) != VK_SUCCESS) return -1;
    VkMemoryRequirements needs;
    vk.vkGetImageMemoryRequirements(ctx.device, p->frame_image, &needs);
    uint32_t type = UINT32_MAX;
    for (int pass = 0; pass < 2 && type == UINT32_MAX; pass++) {
        for (uint32_t i = 0; i < ctx.memory.memoryTypeCount; i++) {
            int local = (ctx.memory.memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) != 0;
            if ((needs.memoryTypeBits & (1u << i)) && (pass == 1 || local)) { type = i; break; }
        }
    }
    if (type == UINT32_MAX) return -1;
    VkMemoryAllocateInfo allocate = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = needs.size, .memoryTypeIndex = type};
    if (vk.vkAllocateMemory(ctx.device, &allocate, NULL, &p->frame_memory) != VK_SUCCESS) return -1;
    if (vk.vkBindImageMemory(ctx.device, p->frame_image, p->frame_memory, 0) != VK_SUCCESS) return -1;
    VkImageViewCreateInfo view = {.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = p->frame_image, .viewType = VK_IMAGE_VIEW_TYPE_2D,
                                  .format = VK_FORMAT_B8G8R8A8_UNORM,
                                  .subresourceRange = {.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT, .levelCount = 1, .layerCount = 1}};
    if (vk.vkCreateImageView(ctx.device, &view, NULL, &p->frame_view) != VK_SUCCESS) return -1;
    return 0;
}

/// Buffers for a `width`×`height` frame and `image_words` words of images, and the
/// descriptor set pointing at them.
static int fit(vfx_shader_program *p, int width, int height, size_t image_words) {
    VkDeviceSize image_bytes = image_words ? (VkDeviceSize)image_words * 4 : 4;
    int frame_fits = p->width == width && p->height == height && p->source.buffer;
    int images_fit = p->images.buffer && p->images.size >= image_bytes;
    if (frame_fits && images_fit) return 0;
    if (!frame_fits) free_frame(p);
    if (!images_fit) {
        free_buffer(&p->images);
        p->images_generation = 0;
    }
    // Rounded up to whole blocks of four pixels (the padding is never read as a pixel).
    VkDeviceSize size = ((VkDeviceSize)width * (VkDeviceSize)height + 3) / 4 * 16;
    if (!frame_fits) {
        if (make_buffer(&p->source, size, VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT) != 0) return -1;
        // The destination is also the next program's source in a run.
        if (make_buffer(&p->destination, size, VK_BUFFER_USAGE_STORAGE_TEXEL_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT
                        | VK_BUFFER_USAGE_TRANSFER_SRC_BIT) != 0) return -1;
        if (p->sampled && make_frame_image(p, width, height) != 0) return -1;
        // The source's bytes B, G, R, A read a pixel at a time as RGBA8 (a format every
        // device reads), and four at a time as 32-bit words, as the destination is written.
        VkBufferViewCreateInfo view = {.sType = VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO, .buffer = p->source.buffer,
                                       .format = VK_FORMAT_R8G8B8A8_UNORM, .range = size};
        if (vk.vkCreateBufferView(ctx.device, &view, NULL, &p->source_view) != VK_SUCCESS) return -1;
        view.format = VK_FORMAT_R32G32B32A32_UINT;
        if (vk.vkCreateBufferView(ctx.device, &view, NULL, &p->blocks_view) != VK_SUCCESS) return -1;
        view.buffer = p->destination.buffer;
        if (vk.vkCreateBufferView(ctx.device, &view, NULL, &p->destination_view) != VK_SUCCESS) return -1;
        view.format = VK_FORMAT_R8G8B8A8_UNORM;
        if (vk.vkCreateBufferView(ctx.device, &view, NULL, &p->destination_pixels_view) != VK_SUCCESS) return -1;
        p->frame_id = atomic_fetch_add(&frames_made, 1) + 1;
    }
    if (!images_fit && make_buffer(&p->images, image_bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT) != 0) return -1;
    VkDescriptorBufferInfo infos[3] = {{p->uniforms.buffer, 0, p->uniform_size}, {p->images.buffer, 0, p->images.size}, {p->halt.buffer, 0, 16}};
    VkDescriptorImageInfo frame = {.sampler = VK_NULL_HANDLE, .imageView = p->frame_view, .imageLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
    VkWriteDescriptorSet writes[12] = {
        {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = p->set, .dstBinding = 0, .descriptorCount = 1,
         .descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER, .pTexelBufferView = &p->source_view},
        {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = p->set, .dstBinding = 1, .descriptorCount = 1,
         .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER, .pTexelBufferView = &p->destination_view},
        {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = p->set, .dstBinding = 2, .descriptorCount = 1,
         .descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, .pBufferInfo = &infos[0]},
        {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = p->set, .dstBinding = 3, .descriptorCount = 1,
         .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .pBufferInfo = &infos[1]},
        {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = p->set, .dstBinding = 4, .descriptorCount = 1,
         .descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER, .pTexelBufferView = &p->blocks_view},
        {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = p->set, .dstBinding = 5, .descriptorCount = 1,
         .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .pBufferInfo = &infos[2]},
    };
    // The chained set: the same destination, uniforms, images and halt word (its source
    // is written when a run chains it).
    for (int i = 0; i < 3; i++) {
        writes[6 + i] = writes[1 + i];
        writes[6 + i].dstSet = p->chained_set;
    }
    writes[9] = writes[5];
    writes[9].dstSet = p->chained_set;
    int written = 10;
    if (p->sampled) {
        // One image for both sets: the run copies the frame it reads into it.
        for (int k = 0; k < 2; k++) {
            writes[written++] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = k ? p->chained_set : p->set,
                                                       .dstBinding = 6, .descriptorCount = 1,
                                                       .descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, .pImageInfo = &frame};
        }
    }
    vk.vkUpdateDescriptorSets(ctx.device, (uint32_t)written, writes, 0, NULL);
    p->chained_from = 0;
    p->width = width;
    p->height = height;
    return 0;
}

static atomic_int interrupted;

// One run on the device at a time. The queue runs submissions in turn anyway (lavapipe's
// one thread, a GPU's one queue here); taken here, a run's time limit counts its own
// work, not the wait behind another's (a runaway halted at its limit once made the
// frames queued behind it pass theirs too).
static pthread_mutex_t device_turn = PTHREAD_MUTEX_INITIALIZER;

void vfx_shader_interrupt(void) { atomic_store(&interrupted, 1); }

/// Orders programs by address, so that runs holding several lock them in one order.
static int by_address(const void *a, const void *b) {
    uintptr_t x = (uintptr_t)*(vfx_shader_program *const *)a, y = (uintptr_t)*(vfx_shader_program *const *)b;
    return x < y ? -1 : x > y;
}

int vfx_shader_chain_run(vfx_shader_program *const *programs, int count, const uint32_t *source, size_t source_stride,
                         uint32_t *destination, size_t destination_stride, int width, int height, const void *const *uniforms,
                         const uint32_t *const *images, const size_t *image_words, const uint64_t *images_generation,
                         const unsigned char *host_after, void (*between)(int after, uint32_t *pixels, void *context), void *context,
                         uint64_t timeout_ms, int *failed, char *error, size_t error_size) {
    *failed = 0;
    if (count < 1 || count > VFX_SHADER_MOST_CHAINED) {
        snprintf(error, error_size, "a run of %d shaders (1 to %d)", count, VFX_SHADER_MOST_CHAINED);
        return -1;
    }
    if (width <= 0 || height <= 0 || width > 32768 || height > 32768) {
        snprintf(error, error_size, "a %dx%d frame is outside what a shader takes", width, height);
        return -1;
    }
    if (source_stride < (size_t)width || destination_stride < (size_t)width) {
        snprintf(error, error_size, "a row is wider than its stride");
        return -1;
    }
    if ((uint64_t)width * (uint64_t)height > ctx.most_texels) {
        snprintf(error, error_size, "a %dx%d frame is more pixels than %s takes in a shader (%u)", width, height, ctx.device_name, ctx.most_texels);
        return -1;
    }
    // A program twice in one run would read the destination it writes.
    vfx_shader_program *locked[VFX_SHADER_MOST_CHAINED];
    memcpy(locked, programs, sizeof *programs * (size_t)count);
    qsort(locked, (size_t)count, sizeof *locked, by_address);
    for (int i = 1; i < count; i++) {
        if (locked[i] == locked[i - 1]) {
            snprintf(error, error_size, "a run holds one shader program twice");
            return -1;
        }
    }
    for (int i = 0; i < count; i++) pthread_mutex_lock(&locked[i]->lock);
    pthread_mutex_lock(&device_turn);
    int status = -1;
    for (int i = 0; i < count; i++) {
        vfx_shader_program *p = programs[i];
        *failed = i;
        if (p->lost) {
            snprintf(error, error_size, "the shader passed its time limit on an earlier frame");
            goto done;
        }
        if (image_words[i] > ((size_t)1 << 28)) {
            snprintf(error, error_size, "the shader's images are too large");
            goto done;
        }
        if (fit(p, width, height, image_words[i]) != 0) {
            snprintf(error, error_size, "Vulkan: no memory for a %dx%d frame on %s", width, height, ctx.device_name);
            goto done;
        }
    }
    *failed = 0;
    if (atomic_load(&interrupted)) {
        snprintf(error, error_size, "interrupted");
        status = 2;
        goto done;
    }
    vfx_shader_program *first = programs[0], *last = programs[count - 1];
    size_t row = (size_t)width * 4;
    // Packed on the device; rows padded to an alignment are copied one by one.
    if (source_stride == (size_t)width) {
        memcpy(first->source.mapped, source, row * (size_t)height);
    } else {
        for (int y = 0; y < height; y++) memcpy((char *)first->source.mapped + row * (size_t)y, source + source_stride * (size_t)y, row);
    }
    for (int i = 0; i < count; i++) {
        vfx_shader_program *p = programs[i];
        *(volatile uint32_t *)p->halt.mapped = 0;
        memcpy(p->uniforms.mapped, uniforms[i], p->uniform_size);
        // The images are copied when they are not those the buffer already holds.
        if (image_words[i] && images[i] && images_generation[i] != p->images_generation) {
            memcpy(p->images.mapped, images[i], image_words[i] * 4);
            p->images_generation = images_generation[i];
        }
        // A program after the first reads the frame where the one before it wrote it.
        if (i > 0 && p->chained_from != programs[i - 1]->frame_id) {
            vfx_shader_program *before = programs[i - 1];
            VkWriteDescriptorSet writes[2] = {
                {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = p->chained_set, .dstBinding = 0, .descriptorCount = 1,
                 .descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER, .pTexelBufferView = &before->destination_pixels_view},
                {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = p->chained_set, .dstBinding = 4, .descriptorCount = 1,
                 .descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER, .pTexelBufferView = &before->destination_view},
            };
            vk.vkUpdateDescriptorSets(ctx.device, 2, writes, 0, NULL);
            p->chained_from = before->frame_id;
        }
    }
    // One command buffer (the first program's): each dispatch, then a barrier that makes
    // its writes visible to the next one's reads, and the last one's to the host. Where
    // the host works on the frame between two programs (`host_after`), the run is
    // submitted in parts and the host's writes, made before the next submission, are
    // what the next program reads.
    VkCommandBuffer commands = first->commands;
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    // Four pixels an invocation over the frame as one run of pixels (the program's main),
    // the groups in rows of at most what the device takes along x.
    uint64_t blocks = ((uint64_t)width * (uint64_t)height + 3) / 4;
    uint64_t groups = (blocks + ctx.group_width - 1) / ctx.group_width;
    uint32_t along = groups < ctx.most_groups ? (uint32_t)groups : ctx.most_groups;
    int part_start = 0;
    for (int i = 0; i < count; i++) {
        if (i == part_start) {
            vk.vkResetCommandBuffer(commands, 0);
            vk.vkBeginCommandBuffer(commands, &begin);
        }
        vfx_shader_program *p = programs[i];
        if (p->sampled) {
            // The frame this program reads, copied into its image (the device's own copy:
            // a memcpy on lavapipe, a transfer on a GPU).
            VkImageMemoryBarrier to_copy = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER, .srcAccessMask = VK_ACCESS_SHADER_READ_BIT,
                                            .dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT, .oldLayout = VK_IMAGE_LAYOUT_UNDEFINED,
                                            .newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                                            .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .image = p->frame_image,
                                            .subresourceRange = {.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT, .levelCount = 1, .layerCount = 1}};
            vk.vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_HOST_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                                    0, 0, NULL, 0, NULL, 1, &to_copy);
            VkBufferImageCopy region = {.bufferOffset = 0, .bufferRowLength = (uint32_t)width, .bufferImageHeight = (uint32_t)height,
                                        .imageSubresource = {.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT, .layerCount = 1},
                                        .imageExtent = {(uint32_t)width, (uint32_t)height, 1}};
            VkBuffer from = i == 0 ? p->source.buffer : programs[i - 1]->destination.buffer;
            vk.vkCmdCopyBufferToImage(commands, from, p->frame_image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
            VkImageMemoryBarrier to_read = to_copy;
            to_read.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
            to_read.dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
            to_read.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
            to_read.newLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
            vk.vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 0, NULL, 0, NULL, 1, &to_read);
        }
        vk.vkCmdBindPipeline(commands, VK_PIPELINE_BIND_POINT_COMPUTE, p->pipeline);
        vk.vkCmdBindDescriptorSets(commands, VK_PIPELINE_BIND_POINT_COMPUTE, ctx.pipeline_layout, 0, 1, i == 0 ? &p->set : &p->chained_set, 0, NULL);
        vk.vkCmdDispatch(commands, along, (uint32_t)((groups + along - 1) / along), 1);
        int to_host = i == count - 1 || (between && host_after && host_after[i]);
        // The next program reads this one's result in a shader, or copies it into its image.
        VkMemoryBarrier barrier = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                                   .dstAccessMask = to_host ? VK_ACCESS_HOST_READ_BIT | VK_ACCESS_HOST_WRITE_BIT
                                                            : VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT};
        vk.vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                                to_host ? VK_PIPELINE_STAGE_HOST_BIT : VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                                0, 1, &barrier, 0, NULL, 0, NULL);
        if (!to_host) continue;
        vk.vkEndCommandBuffer(commands);
        vk.vkResetFences(ctx.device, 1, &first->fence);
        VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &commands};
        pthread_mutex_lock(&ctx.lock);  // one queue for every program
        VkResult submitted = vk.vkQueueSubmit(ctx.queue, 1, &submit, first->fence);
        pthread_mutex_unlock(&ctx.lock);
        if (submitted != VK_SUCCESS) {
            snprintf(error, error_size, "Vulkan: the shader could not be run on %s (%d)", ctx.device_name, (int)submitted);
            goto done;
        }
        // Waited on in slices, so that an interruption (Ctrl-C) ends the wait within 100 ms.
        // The limit is each program's: a part of n programs may take n times it.
        uint64_t limit = timeout_ms * (uint64_t)(i + 1 - part_start);
        VkResult waited = VK_TIMEOUT;
        for (uint64_t spent = 0; spent < limit; spent += 100) {
            uint64_t slice = limit - spent < 100 ? limit - spent : 100;
            waited = vk.vkWaitForFences(ctx.device, 1, &first->fence, VK_TRUE, slice * 1000000ull);
            if (waited != VK_TIMEOUT) break;
            if (atomic_load(&interrupted)) {
                snprintf(error, error_size, "interrupted while the shader ran");
                status = 2;
                break;
            }
        }
        if (status == 2 || waited == VK_TIMEOUT) {
            if (status != 2) {
                snprintf(error, error_size, "the shader ran for more than %g s on one frame", (double)timeout_ms / 1000.0);
                status = 1;
            }
            // Halted: the user's loops end at their next look at the word, and the run
            // finishes (its pixels are not used). Only a run that does not finish even
            // then keeps its programs' buffers for good, still on the device.
            for (int k = part_start; k <= i; k++) *(volatile uint32_t *)programs[k]->halt.mapped = 1;
            // After the halt each invocation still finishes the turn it is in (one turn of
            // a heavy body over a 1080p frame took 5 s here): as long again as the limit,
            // at least 5 s. Interrupted (Ctrl-C), the process is stopping: a second at most,
            // so that Ctrl-C ends vidfx within one.
            VkResult ended = VK_TIMEOUT;
            uint64_t slices = status == 2 ? 10 : timeout_ms / 100 < 50 ? 50 : timeout_ms / 100;
            for (uint64_t slice = 0; slice < slices && ended == VK_TIMEOUT; slice++) {
                ended = vk.vkWaitForFences(ctx.device, 1, &first->fence, VK_TRUE, 100ull * 1000000ull);
            }
            if (ended != VK_SUCCESS) {
                for (int k = 0; k < count; k++) programs[k]->lost = 1;
            }
            *failed = i;
            goto done;
        }
        if (waited != VK_SUCCESS) {
            snprintf(error, error_size, "Vulkan: the shader failed on %s (%d)", ctx.device_name, (int)waited);
            goto done;
        }
        if (i < count - 1) between(i, (uint32_t *)p->destination.mapped, context);
        part_start = i + 1;
    }
    if (destination_stride == (size_t)width) {
        memcpy(destination, last->destination.mapped, row * (size_t)height);
    } else {
        for (int y = 0; y < height; y++) memcpy(destination + destination_stride * (size_t)y, (char *)last->destination.mapped + row * (size_t)y, row);
    }
    status = 0;
done:
    pthread_mutex_unlock(&device_turn);
    for (int i = count - 1; i >= 0; i--) pthread_mutex_unlock(&locked[i]->lock);
    return status;
}

int vfx_shader_program_run(vfx_shader_program *p, const uint32_t *source, size_t source_stride, uint32_t *destination,
                           size_t destination_stride, int width, int height, const void *uniforms, const uint32_t *images,
                           size_t image_words, uint64_t images_generation, uint64_t timeout_ms, char *error, size_t error_size) {
    int failed;
    return vfx_shader_chain_run(&p, 1, source, source_stride, destination, destination_stride, width, height, &uniforms, &images,
                                &image_words, &images_generation, NULL, NULL, NULL, timeout_ms, &failed, error, error_size);
}

void vfx_shader_program_free(vfx_shader_program *p) {
    if (!p) return;
    // A run still on the device (past its limit) may yet write its buffers: they are kept.
    if (p->lost) return;
    if (ctx.state == 1) {
        free_frame(p);
        free_buffer(&p->uniforms);
        free_buffer(&p->images);
        free_buffer(&p->halt);
        if (p->fence) vk.vkDestroyFence(ctx.device, p->fence, NULL);
        if (p->commands) {
            pthread_mutex_lock(&ctx.lock);
            vk.vkFreeCommandBuffers(ctx.device, ctx.pool, 1, &p->commands);
            pthread_mutex_unlock(&ctx.lock);
        }
        if (p->descriptors) vk.vkDestroyDescriptorPool(ctx.device, p->descriptors, NULL);
        if (p->pipeline) vk.vkDestroyPipeline(ctx.device, p->pipeline, NULL);
        if (p->module) vk.vkDestroyShaderModule(ctx.device, p->module, NULL);
    }
    pthread_mutex_destroy(&p->lock);
    free(p);
}
