#include "CThreadContext.h"

// The one definition of the thread-local the header declares.
__thread void *oj_thread_context OJ_TLS_MODEL = 0;

// The main queue's key (MainQueue.h): only its address is used.
char oj_main_queue_key = 0;
