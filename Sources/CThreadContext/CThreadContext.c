#include "CThreadContext.h"

// The one definition of the thread-local the header declares.
__thread void *oj_thread_context OJ_TLS_MODEL = 0;
