/* operator_runtime._fastcall: Operator.__call__'s cache-hit path in C, for oprt.Tensor and torch tensors.
 *
 * FastOperator.run(out, inputs, attrs, stream[, backend]) reads each tensor's layout and placement, picks
 * the call's backend as _dispatch does (the backend argument, else the context's explicit choice, else
 * where the tensors live: an oprt.Tensor's backend_id, cpu for torch CPU tensors, the GPU backend for torch
 * CUDA ones), finds the descriptor under the key _dispatch.cache_key would build, runs the op's execute
 * entry point and returns True. A descriptor that needs a workspace gets one as the Python path gives it:
 * oprt_malloc_async on the call's stream with the call's backend active, oprt_free_async after the call.
 * Anything else (another tensor type, mixed placements, a cache miss, an unusual argument, a workspace that
 * could not be had) returns False before anything ran, and the Python path runs the call: both paths give
 * the same results and the same errors.
 *
 * The GIL is released while the op executes: the cache entry this call holds owns the descriptor
 * (_dispatch._Descriptor), so another thread evicting it cannot destroy it under the call.
 *
 * Stable ABI (CPython >= 3.10): one .so serves every later version. It links neither libcamp_ops.so
 * nor torch: _dispatch.py passes the C entry points' addresses and the Python objects it needs. */
#define Py_LIMITED_API 0x030A0000
#include <Python.h>
#include <stdint.h>

#define MAX_INPUTS 2
#define KEY_FIELDS 4 /* per tensor: dtype code, shape, strides, device */

typedef int (*Execute1)(void *, void *, size_t, void *, void *, void *);
typedef int (*Execute2)(void *, void *, size_t, void *, void *, void *, void *);

/* The library's workspace entry points (configure's fourth argument; all NULL: workspaces take the Python path). */
static struct {
    int (*malloc_async)(void **, size_t, void *);
    int (*free_async)(void *, void *);
    int32_t (*get_backend)(void);
    int (*set_backend)(int32_t);
} workspace_api;

/* Set by configure() and use_torch(), kept for the interpreter's life. torch_* stay NULL until a torch
 * tensor has been through the Python path (we never import torch ourselves). */
static PyObject *explicit_backend; /* _backends.explicit: the context's explicit backend id, or None */
static PyObject *tensor_type, *check;
static PyObject *torch_types, *torch_codes, *torch_raw_stream;
static long torch_cuda_backend = -1; /* the backend id of torch's CUDA tensors; -1: no GPU backend */
static PyObject *str_dtype_code, *str_dtype, *str_shape, *str_element_strides, *str_stride, *str_device,
    *str_is_cuda, *str_data_ptr, *str_get_device, *str_backend_id;

typedef struct {
    PyObject *key[KEY_FIELDS]; /* this tensor's part of the cache key, as tensor.view_of reads it */
    void *ptr;
    long placement; /* the id of the backend whose memory it is (View.placement) */
    int torch_cuda;
} TensorView;

static int is_torch_tensor(PyObject *x)
{
    for (Py_ssize_t i = 0; torch_types && i < PyTuple_Size(torch_types); i++)
        if ((PyObject *)Py_TYPE(x) == PyTuple_GetItem(torch_types, i))
            return 1;
    return 0;
}

static void release(TensorView *v)
{
    for (int f = 0; f < KEY_FIELDS; f++)
        Py_CLEAR(v->key[f]);
}

/* 0, or -1 for another type or a failed read (the Python path then raises the real error). */
static int view_of(PyObject *x, TensorView *v)
{
    PyObject *address = NULL;
    v->torch_cuda = 0;
    v->placement = -1;
    if ((PyObject *)Py_TYPE(x) == tensor_type) {
        v->key[0] = PyObject_GetAttr(x, str_dtype_code);
        v->key[1] = PyObject_GetAttr(x, str_shape);
        v->key[2] = PyObject_GetAttr(x, str_element_strides);
        v->key[3] = PyObject_GetAttr(x, str_device);
        PyObject *backend_id = PyObject_GetAttr(x, str_backend_id);
        if (backend_id) {
            v->placement = PyLong_AsLong(backend_id);
            Py_DECREF(backend_id);
        }
        address = backend_id ? PyObject_GetAttr(x, str_data_ptr) : NULL;
    } else if (is_torch_tensor(x)) {
        PyObject *dtype = PyObject_GetAttr(x, str_dtype), *size = PyObject_GetAttr(x, str_shape);
        v->key[0] = dtype ? PyDict_GetItemWithError(torch_codes, dtype) : NULL;
        Py_XINCREF(v->key[0]);
        v->key[1] = size ? PySequence_Tuple(size) : NULL; /* torch.Size -> tuple, as tensor._torch_view */
        Py_XDECREF(dtype);
        Py_XDECREF(size);
        v->key[2] = PyObject_CallMethodObjArgs(x, str_stride, NULL);
        v->key[3] = PyObject_GetAttr(x, str_is_cuda);
        address = PyObject_CallMethodObjArgs(x, str_data_ptr, NULL);
        v->torch_cuda = v->key[3] == Py_True;
        v->placement = v->torch_cuda ? torch_cuda_backend : 0;
    }
    if (address) {
        v->ptr = PyLong_AsVoidPtr(address);
        Py_DECREF(address);
    }
    if (!address || PyErr_Occurred() || !v->key[0] || !v->key[1] || !v->key[2] || !v->key[3] || v->placement < 0) {
        release(v);
        return -1;
    }
    return 0;
}

/* The explicit stream (None or an int), else torch's current stream on the device of the first torch
 * CUDA tensor (as _dispatch._stream_for), else NULL. -1: an argument left to the Python path. */
static int stream_for(PyObject *stream, PyObject *torch_cuda, void **out)
{
    *out = NULL;
    if (stream == Py_None && torch_cuda) {
        PyObject *device = PyObject_CallMethodObjArgs(torch_cuda, str_get_device, NULL);
        stream = device ? PyObject_CallFunctionObjArgs(torch_raw_stream, device, NULL) : NULL;
        Py_XDECREF(device);
        if (!stream)
            return -1;
        *out = PyLong_AsVoidPtr(stream);
        Py_DECREF(stream);
    } else if (PyLong_Check(stream)) {
        *out = PyLong_AsVoidPtr(stream);
    } else if (stream != Py_None) {
        return -1;
    }
    return PyErr_Occurred() ? -1 : 0;
}

typedef struct {
    PyObject_HEAD
    void *execute;
    int num_inputs;
    PyObject *descriptors; /* the Operator's cache: key -> (descriptor, workspace bytes, owner) */
    PyObject *check;       /* raises the typed error of a status (the Operator's: its parameter names); or NULL */
    /* The last hit: a repeated call compares its key fields in place instead of building and hashing a
     * key. Its entry may have left the cache since; it still owns a live descriptor. */
    PyObject *last_key, *last_entry;
} FastOperator;

static int FastOperator_init(FastOperator *self, PyObject *args, PyObject *kwargs)
{
    PyObject *execute, *descriptors, *check_fn = NULL;
    if (!explicit_backend) {
        PyErr_SetString(PyExc_RuntimeError, "call operator_runtime._fastcall.configure() first");
        return -1;
    }
    if (!PyArg_ParseTuple(args, "O!iO!|O:FastOperator", &PyLong_Type, &execute, &self->num_inputs, &PyDict_Type,
                          &descriptors, &check_fn))
        return -1;
    if (self->num_inputs < 1 || self->num_inputs > MAX_INPUTS) {
        PyErr_Format(PyExc_ValueError, "FastOperator takes 1 to %d inputs, not %d", MAX_INPUTS, self->num_inputs);
        return -1;
    }
    self->execute = PyLong_AsVoidPtr(execute);
    if (PyErr_Occurred())
        return -1;
    Py_INCREF(descriptors);
    Py_XDECREF(self->descriptors);
    self->descriptors = descriptors;
    if (check_fn && check_fn != Py_None) {
        PyObject *old = self->check;
        Py_INCREF(check_fn);
        self->check = check_fn;
        Py_XDECREF(old);
    }
    return 0;
}

static void FastOperator_dealloc(FastOperator *self)
{
    PyTypeObject *type = Py_TYPE(self);
    Py_CLEAR(self->last_key);
    Py_CLEAR(self->last_entry);
    Py_XDECREF(self->descriptors);
    Py_XDECREF(self->check);
    ((freefunc)PyType_GetSlot(type, Py_tp_free))(self);
    Py_DECREF(type);
}

static int same(PyObject *a, PyObject *b)
{
    int equal = a == b ? 1 : PyObject_RichCompareBool(a, b, Py_EQ);
    if (equal < 0)
        PyErr_Clear(); /* the dict lookup then meets (and raises) the same error */
    return equal > 0;
}

/* Whether key equals the key of this call, field by field (as a dict compares keys). */
static int is_key_of(PyObject *key, int num_tensors, PyObject *backend, PyObject *attrs, TensorView *views)
{
    if (!same(PyTuple_GetItem(key, 0), backend) || !same(PyTuple_GetItem(key, 1), attrs))
        return 0;
    for (int i = 0; i < num_tensors; i++)
        for (int f = 0; f < KEY_FIELDS; f++)
            if (!same(PyTuple_GetItem(PyTuple_GetItem(key, 2 + i), f), views[i].key[f]))
                return 0;
    return 1;
}

/* The cache entry of this call (a new reference), or NULL for a miss or an error. */
static PyObject *lookup(FastOperator *self, PyObject *backend, PyObject *attrs, TensorView *views)
{
    /* Owned while compared: an attrs __eq__ is Python code, during which another thread may forget them. */
    PyObject *last_key = self->last_key, *last_entry = self->last_entry;
    if (last_key) {
        Py_INCREF(last_key);
        Py_INCREF(last_entry);
        int hit = is_key_of(last_key, 1 + self->num_inputs, backend, attrs, views);
        Py_DECREF(last_key);
        if (hit)
            return last_entry;
        Py_DECREF(last_entry);
    }
    /* Exactly _dispatch.cache_key: (backend id, attrs, (dtype code, shape, strides, device) per tensor). */
    PyObject *key = PyTuple_New(2 + 1 + self->num_inputs), *entry = NULL;
    if (!key)
        return NULL;
    Py_INCREF(backend);
    PyTuple_SetItem(key, 0, backend);
    Py_INCREF(attrs);
    PyTuple_SetItem(key, 1, attrs);
    for (int i = 0; i <= self->num_inputs; i++) {
        PyObject *layout = PyTuple_Pack(KEY_FIELDS, views[i].key[0], views[i].key[1], views[i].key[2], views[i].key[3]);
        if (!layout)
            goto done;
        PyTuple_SetItem(key, 2 + i, layout);
    }
    entry = PyDict_GetItemWithError(self->descriptors, key);
    if (entry) {
        /* Both replaced before the old ones go: their release may run Python code (a descriptor's
         * __del__), and another thread with it. */
        PyObject *old_key = self->last_key, *old_entry = self->last_entry;
        Py_INCREF(entry);
        Py_INCREF(entry);
        self->last_key = key;
        self->last_entry = entry;
        key = NULL;
        Py_XDECREF(old_key);
        Py_XDECREF(old_entry);
    }
done:
    Py_XDECREF(key);
    return entry;
}

static int run_execute(FastOperator *self, void *desc, void *workspace, size_t ws_bytes, TensorView *views,
                       void *stream)
{
    return self->num_inputs == 1
               ? ((Execute1)self->execute)(desc, workspace, ws_bytes, views[0].ptr, views[1].ptr, stream)
               : ((Execute2)self->execute)(desc, workspace, ws_bytes, views[0].ptr, views[1].ptr, views[2].ptr, stream);
}

/* Runs execute on the cached entry (which the caller holds) on C backend `backend`: 1, or -1 with an error
 * set, or 0 for the Python path (a workspace that could not be had: nothing ran). A workspace is allocated
 * and freed on the call's stream with the backend active, as _dispatch's Python path does. */
static int execute(FastOperator *self, PyObject *entry, TensorView *views, void *stream, long backend)
{
    void *desc = PyLong_AsVoidPtr(PyTuple_GetItem(entry, 0));
    size_t ws_bytes = PyLong_AsSize_t(PyTuple_GetItem(entry, 1));
    if (PyErr_Occurred())
        return -1;
    if (ws_bytes && !workspace_api.malloc_async)
        return 0;
    int status, freed = 0, allocated = 1;
    Py_BEGIN_ALLOW_THREADS
    if (!ws_bytes) {
        status = run_execute(self, desc, NULL, 0, views, stream);
    } else {
        const int32_t previous = workspace_api.get_backend();
        const int switched = previous != (int32_t)backend;
        void *workspace = NULL;
        allocated = (!switched || workspace_api.set_backend((int32_t)backend) == 0) &&
                    workspace_api.malloc_async(&workspace, ws_bytes, stream) == 0;
        status = allocated ? run_execute(self, desc, workspace, ws_bytes, views, stream) : 0;
        if (allocated)
            freed = workspace_api.free_async(workspace, stream);
        if (switched)
            workspace_api.set_backend(previous);
    }
    Py_END_ALLOW_THREADS
    if (!allocated)
        return 0;
    if (status || freed) { /* the op's error, else the free's */
        PyObject *raise = status ? (self->check ? self->check : check) : check;
        Py_XDECREF(PyObject_CallFunction(raise, "i", status ? status : freed)); /* raises the typed error */
        return -1;
    }
    return 1;
}

static PyObject *FastOperator_run(FastOperator *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4 && nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "run(out, inputs, attrs, stream[, backend])");
        return NULL;
    }
    PyObject *out = args[0], *inputs = args[1], *attrs = args[2], *stream = args[3];
    PyObject *chosen = nargs == 5 ? args[4] : Py_None; /* the call's backend= (an id), or None */
    if (!self->descriptors || !PyList_Check(inputs) || PyList_Size(inputs) != self->num_inputs)
        Py_RETURN_FALSE;
    TensorView views[1 + MAX_INPUTS] = {{{NULL}}};
    PyObject *torch_cuda = NULL, *backend = NULL, *entry = NULL;
    void *stream_ptr;
    int result = 0, i;
    for (i = 0; i <= self->num_inputs; i++) {
        PyObject *x = i ? PyList_GetItem(inputs, i - 1) : out;
        if (view_of(x, &views[i]) < 0)
            goto done;
        if (views[i].torch_cuda && !torch_cuda) {
            torch_cuda = x;
            Py_INCREF(torch_cuda);
        }
    }
    if (stream_for(stream, torch_cuda, &stream_ptr) < 0)
        goto done;
    if (chosen != Py_None) {
        if (!PyLong_Check(chosen))
            goto done;
        backend = chosen;
        Py_INCREF(backend);
    } else if ((backend = PyObject_CallNoArgs(explicit_backend)) == Py_None) {
        /* No explicit choice: where the tensors live, all in one place (else the Python path raises). */
        Py_CLEAR(backend);
        for (int k = 1; k <= self->num_inputs; k++)
            if (views[k].placement != views[0].placement)
                goto done;
        backend = PyLong_FromLong(views[0].placement);
    }
    entry = backend ? lookup(self, backend, attrs, views) : NULL;
    if (entry)
        result = execute(self, entry, views, stream_ptr, PyLong_AsLong(backend));
done:
    if (result == 0)
        PyErr_Clear(); /* a miss or a failed read: the Python path runs the call (and raises the real error) */
    while (i-- > 0)
        release(&views[i]);
    Py_XDECREF(torch_cuda);
    Py_XDECREF(backend);
    Py_XDECREF(entry);
    return result < 0 ? NULL : PyBool_FromLong(result);
}

static PyMethodDef FastOperator_methods[] = {
    {"run", (PyCFunction)(void (*)(void))FastOperator_run, METH_FASTCALL,
     "run(out, inputs, attrs, stream) -> True when done here, False when the Python path must run the call"},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot FastOperator_slots[] = {
    {Py_tp_doc, "FastOperator(execute address, number of inputs, descriptor cache dict[, check(status)])"},
    {Py_tp_new, PyType_GenericNew},
    {Py_tp_init, FastOperator_init},
    {Py_tp_dealloc, FastOperator_dealloc},
    {Py_tp_methods, FastOperator_methods},
    {0, NULL},
};

static PyType_Spec FastOperator_spec = {
    "operator_runtime._fastcall.FastOperator", sizeof(FastOperator), 0, Py_TPFLAGS_DEFAULT, FastOperator_slots,
};

/* Replaces a global with a new reference to value. */
static void keep(PyObject **global, PyObject *value)
{
    Py_INCREF(value);
    Py_XDECREF(*global);
    *global = value;
}

static PyObject *configure(PyObject *module, PyObject *args)
{
    PyObject *current, *tensor, *check_fn, *addresses = NULL;
    if (!PyArg_ParseTuple(args, "OOO|O!:configure", &current, &tensor, &check_fn, &PyTuple_Type, &addresses))
        return NULL;
    if (addresses) { /* (oprt_malloc_async, oprt_free_async, oprt_get_backend, oprt_set_backend) */
        void *a[4];
        if (PyTuple_Size(addresses) != 4) {
            PyErr_SetString(PyExc_ValueError, "configure's addresses: malloc_async, free_async, get_backend, set_backend");
            return NULL;
        }
        for (int k = 0; k < 4; k++)
            if (!(a[k] = PyLong_AsVoidPtr(PyTuple_GetItem(addresses, k))))
                return PyErr_Occurred() ? NULL : (PyErr_SetString(PyExc_ValueError, "a NULL address"), NULL);
        workspace_api.malloc_async = (int (*)(void **, size_t, void *))a[0];
        workspace_api.free_async = (int (*)(void *, void *))a[1];
        workspace_api.get_backend = (int32_t(*)(void))a[2];
        workspace_api.set_backend = (int (*)(int32_t))a[3];
    }
    keep(&explicit_backend, current);
    keep(&tensor_type, tensor);
    keep(&check, check_fn);
    Py_RETURN_NONE;
}

static PyObject *use_torch(PyObject *module, PyObject *args)
{
    PyObject *types, *codes, *raw_stream, *cuda_backend = Py_None;
    if (!PyArg_ParseTuple(args, "O!O!O|O:use_torch", &PyTuple_Type, &types, &PyDict_Type, &codes, &raw_stream,
                          &cuda_backend))
        return NULL;
    torch_cuda_backend = cuda_backend == Py_None ? -1 : PyLong_AsLong(cuda_backend);
    if (PyErr_Occurred())
        return NULL;
    keep(&torch_types, types);
    keep(&torch_codes, codes);
    keep(&torch_raw_stream, raw_stream);
    Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"configure", configure, METH_VARARGS,
     "configure(_backends.explicit (the context's explicit backend id or None), oprt.Tensor, check(status)[, "
     "(addresses of oprt_malloc_async, oprt_free_async, oprt_get_backend, oprt_set_backend)])"},
    {"use_torch", use_torch, METH_VARARGS,
     "use_torch((torch tensor types), {torch dtype: code}, torch._C._cuda_getCurrentRawStream, "
     "backend id of CUDA tensors or None)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "operator_runtime._fastcall", NULL, -1, module_methods,
};

PyMODINIT_FUNC PyInit__fastcall(void)
{
    PyObject **names[] = {&str_dtype_code, &str_dtype, &str_shape, &str_element_strides, &str_stride,
                          &str_device, &str_is_cuda, &str_data_ptr, &str_get_device, &str_backend_id};
    const char *texts[] = {"dtype_code", "dtype", "shape", "element_strides", "stride",
                           "device", "is_cuda", "data_ptr", "get_device", "backend_id"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (!(*names[i] = PyUnicode_InternFromString(texts[i])))
            return NULL;
    PyObject *module = PyModule_Create(&module_def);
    PyObject *type = module ? PyType_FromSpec(&FastOperator_spec) : NULL;
    if (!type || PyModule_AddType(module, (PyTypeObject *)type) < 0) {
        Py_XDECREF(type);
        Py_XDECREF(module);
        return NULL;
    }
    Py_DECREF(type);
    if (PyModule_AddIntConstant(module, "MAX_INPUTS", MAX_INPUTS) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
