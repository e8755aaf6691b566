#ifndef PROF_GPU_CUPTI_API_H
#define PROF_GPU_CUPTI_API_H
/*
 * The part of NVIDIA's CUPTI interface libprofgpu-cupti.so uses, declared
 * here because CUPTI's headers are not installed where proftools builds.
 * Written from CUPTI's documentation (CUDA 12.x); the values are CUPTI's
 * ABI. Activity records: only the leading fields, which every kernel
 * record version since CUpti_ActivityKernel4 shares (Kernel9 of CUDA
 * 12.0-12.6 included), and those of CUpti_ActivityMemcpy5 and
 * CUpti_ActivityMemset4; the library's API version is checked at run
 * time (PGK_CUPTI_MIN..PGK_CUPTI_MAX) before any record is read.
 * tests/fake-cupti/ implements this same interface.
 */
#include <stddef.h>
#include <stdint.h>

#define PGK_CUPTI_MIN 19	/* CUDA 12.0: CUpti_ActivityKernel9 */
#define PGK_CUPTI_MAX 30	/* the newest API version whose records were checked */

typedef int CUptiResult;	/* CUPTI_SUCCESS 0 */
#define CUPTI_SUCCESS 0
#define CUPTI_ERROR_MAX_LIMIT_REACHED 12
#define CUPTI_ERROR_INSUFFICIENT_PRIVILEGES 35
#define CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED 39

enum {
	CUPTI_ACTIVITY_KIND_MEMCPY = 1,
	CUPTI_ACTIVITY_KIND_MEMSET = 2,
	CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL = 10,
};
#define CUPTI_ACTIVITY_FLAG_FLUSH_FORCED 1u

enum { CUPTI_API_ENTER = 0, CUPTI_API_EXIT = 1 };
enum { CUPTI_CB_DOMAIN_DRIVER_API = 1, CUPTI_CB_DOMAIN_RUNTIME_API = 2 };

/* Callback ids (cupti_driver_cbid.h, cupti_runtime_cbid.h). */
enum {
	CBID_cuLaunchKernel = 307, CBID_cuLaunchKernel_ptsz = 442,
	CBID_cuLaunchCooperativeKernel = 477, CBID_cuLaunchCooperativeKernel_ptsz = 478,
	CBID_cuGraphLaunch = 514, CBID_cuGraphLaunch_ptsz = 515,
	CBID_cuLaunchKernelEx = 652, CBID_cuLaunchKernelEx_ptsz = 653,
	CBID_cudaLaunchKernel = 211, CBID_cudaLaunchKernel_ptsz = 214,
	CBID_cudaLaunchCooperativeKernel = 269, CBID_cudaLaunchCooperativeKernel_ptsz = 270,
	CBID_cudaGraphLaunch = 311, CBID_cudaGraphLaunch_ptsz = 312,
	CBID_cudaLaunchKernelExC = 430, CBID_cudaLaunchKernelExC_ptsz = 431,
};

typedef struct CUpti_Subscriber_st *CUpti_SubscriberHandle;
typedef void *CUcontext;

typedef struct {
	int callbackSite;
	const char *functionName;
	const void *functionParams;
	void *functionReturnValue;
	const char *symbolName;
	CUcontext context;
	uint32_t contextUid;
	uint64_t *correlationData;
	uint32_t correlationId;
} CUpti_CallbackData;

typedef void (*CUpti_CallbackFunc)(void *userdata, int domain, uint32_t cbid, const void *cbdata);
typedef void (*CUpti_BuffersCallbackRequestFunc)(uint8_t **buffer, size_t *size,
						 size_t *maxNumRecords);
typedef void (*CUpti_BuffersCallbackCompleteFunc)(CUcontext context, uint32_t streamId,
						  uint8_t *buffer, size_t size, size_t validSize);

/* Every activity record starts with its kind. */
typedef struct {
	uint32_t kind;
} CUpti_Activity;

/* The leading fields of CUpti_ActivityKernel4..9 (packed, 8-aligned). */
typedef struct __attribute__((packed, aligned(8))) {
	uint32_t kind;
	uint8_t cacheConfig, sharedMemoryConfig;
	uint16_t registersPerThread;
	uint32_t partitionedGlobalCacheRequested, partitionedGlobalCacheExecuted;
	uint64_t start, end, completed;
	uint32_t deviceId, contextId, streamId;
	int32_t gridX, gridY, gridZ, blockX, blockY, blockZ;
	int32_t staticSharedMemory, dynamicSharedMemory;
	uint32_t localMemoryPerThread, localMemoryTotal;
	uint32_t correlationId;
	int64_t gridId;
	const char *name;
} PGK_ActivityKernel;

/* The leading fields of CUpti_ActivityMemcpy5. */
typedef struct __attribute__((packed, aligned(8))) {
	uint32_t kind;
	uint8_t copyKind, srcKind, dstKind, flags;
	uint64_t bytes, start, end;
	uint32_t deviceId, contextId, streamId, correlationId;
} PGK_ActivityMemcpy;

/* The leading fields of CUpti_ActivityMemset4. */
typedef struct __attribute__((packed, aligned(8))) {
	uint32_t kind;
	uint32_t value;
	uint64_t bytes, start, end;
	uint32_t deviceId, contextId, streamId, correlationId;
} PGK_ActivityMemset;

#endif
