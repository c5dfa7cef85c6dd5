package io.sluice.cli.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** The lines the CLI prints for a job, from the REST API's JSON. */
class JobTextTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static JsonNode json(String s) throws Exception {
        return JSON.readTree(s.replace('\'', '"'));
    }

    @Test
    void anInitializingJobShowsPhaseAttemptLastErrorAndNextRetry() throws Exception {
        JsonNode job = json("{'id':'0123456789abcdef0123456789abcdef','name':'counting','status':'INITIALIZING',"
                + "'transitions':[{'status':'INITIALIZING','timestampMillis':1000}],'vertices':[],"
                + "'restarts':{'count':0,'recent':[]},'failure':null,"
                + "'recovery':{'phase':'reading checkpoint metadata','attempt':4,'pointersFound':3,'metadataLoaded':0,"
                + "'elapsedMillis':12500,'lastError':'Checkpoint storage s3://b/p unreachable (Connection refused)',"
                + "'nextRetryMillis':3200,'events':['attempt 3 failed']},"
                + "'checkpoints':{'completed':0,'failed':0,'latestId':-1,'lastFailure':null,'failingSinceMillis':null}}");
        assertThat(JobText.progress(job)).isEqualTo("INITIALIZING  phase 'reading checkpoint metadata', attempt 4,"
                + " last error: Checkpoint storage s3://b/p unreachable (Connection refused), next retry in 3.2 s,"
                + " 12.5 s so far");
        assertThat(JobText.details(job)).anySatisfy(l -> assertThat(l).contains("recovery     phase 'reading checkpoint"
                + " metadata', attempt 4")).anySatisfy(l -> assertThat(l).contains("attempt 3 failed"));
        assertThat(JobText.terminal(job)).isFalse();
    }

    @Test
    void sourcesAreTheVerticesThatReadNothingWhateverTheirNames() throws Exception {
        // A source named after its file (ClickSessions) or "numbers" (docs/rest.md) was counted as no source.
        JsonNode job = json("{'id':'0123456789abcdef0123456789abcdef','name':'sessions','status':'FINISHED',"
                + "'transitions':[],'vertices':[{'id':0,'name':'clicks.csv','parallelism':1,'runningSubtasks':0,"
                + "'recordsIn':23,'recordsOut':23,'subtasks':[],'source':true},{'id':1,'name':'sessions per user',"
                + "'parallelism':2,'runningSubtasks':0,'recordsIn':23,'recordsOut':8,'subtasks':[],'source':false},"
                + "{'id':2,'name':'not reached yet','parallelism':1,'runningSubtasks':1,'recordsIn':0,'recordsOut':0,"
                + "'subtasks':[],'source':false}],"
                + "'restarts':{'count':0,'recent':[]},'failure':null,'recovery':null,"
                + "'checkpoints':{'completed':2,'failed':0,'latestId':2,'lastFailure':null,'failingSinceMillis':null}}");
        assertThat(JobText.progress(job))
                .isEqualTo("FINISHED      source records out 23  checkpoints 2 ok, 0 failed  restarts 0");
    }

    @Test
    void aJobManagerWithoutTheSourceMarkCountsTheVerticesThatReadNothing() throws Exception {
        JsonNode job = json("{'id':'0123456789abcdef0123456789abcdef','name':'counting','status':'RUNNING',"
                + "'transitions':[],'vertices':[{'id':1,'name':'numbers','parallelism':1,'runningSubtasks':1,"
                + "'recordsIn':0,'recordsOut':500,'subtasks':[]},{'id':2,'name':'count per key','parallelism':1,"
                + "'runningSubtasks':1,'recordsIn':480,'recordsOut':480,'subtasks':[]}],"
                + "'restarts':{'count':0,'recent':[]},'failure':null,'recovery':null,"
                + "'checkpoints':{'completed':1,'failed':0,'latestId':1,'lastFailure':null,'failingSinceMillis':null}}");
        assertThat(JobText.progress(job))
                .isEqualTo("RUNNING       source records out 500  checkpoints 1 ok, 0 failed  restarts 0");
    }

    @Test
    void aRunningJobShowsSourceRecordsCheckpointsAndRestarts() throws Exception {
        JsonNode job = json("{'id':'0123456789abcdef0123456789abcdef','name':'counting','status':'RUNNING',"
                + "'transitions':[{'status':'RUNNING','timestampMillis':1000}],"
                + "'vertices':[{'id':1,'name':'Source: numbers','parallelism':2,'runningSubtasks':2,'recordsIn':1234567,"
                + "'recordsOut':1234567,'subtasks':[],'source':true},{'id':2,'name':'count per key','parallelism':2,"
                + "'runningSubtasks':2,'recordsIn':1234000,'recordsOut':1234000,'subtasks':[],'source':false}],"
                + "'restarts':{'count':1,'recent':[]},'failure':null,'recovery':null,"
                + "'checkpoints':{'completed':7,'failed':1,'latestId':7,'lastFailure':null,'failingSinceMillis':null}}");
        assertThat(JobText.progress(job))
                .isEqualTo("RUNNING       source records out 1,234,567  checkpoints 7 ok, 1 failed  restarts 1");
        assertThat(JobText.details(job)).noneSatisfy(l -> assertThat(l).contains("recovery"));
    }
}
